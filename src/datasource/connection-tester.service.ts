import { Inject, Injectable, Optional } from '@nestjs/common';
import { FetcherError } from '../common/errors/fetcher.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionTestSlots } from './connection-test-slots.js';
import type { ResolvedDatasource } from '../engine/connectors/shared/engine-connector.js';
import { DatasourceConnectError } from './datasource.error.js';
import { DatasourceSessions } from './datasource-sessions.service.js';
import { MetricsService } from '../system/metrics.service.js';

export type ConnectionTestResult =
  { readonly ok: true; readonly latencyMs: number } | { readonly ok: false; readonly error: DatasourceConnectError };

/**
 * Opens a real connection to a datasource and closes it again, within the caps on tests open at
 * once (waiting for a slot counts against the timeout). A host the SSRF guard refuses is thrown
 * (FET-0414), not reported as a failed test.
 */
@Injectable()
export class ConnectionTester {
  private readonly slots: ConnectionTestSlots;

  constructor(
    private readonly sessions: DatasourceSessions,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'connectionTests'>,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.slots = new ConnectionTestSlots(config.connectionTests.maxConcurrent, config.connectionTests.maxPerHost);
  }

  async test(datasource: ResolvedDatasource, timeoutMs: number): Promise<ConnectionTestResult> {
    let result: ConnectionTestResult;
    try {
      result = await this.attempt(datasource, timeoutMs);
    } catch (error) {
      this.metrics?.connectionTested(datasource.type, 'refused');
      throw error;
    }
    this.metrics?.connectionTested(datasource.type, result.ok ? undefined : result.error.reason);
    return result;
  }

  private async attempt(datasource: ResolvedDatasource, timeoutMs: number): Promise<ConnectionTestResult> {
    const signal = AbortSignal.timeout(timeoutMs);
    let started: number | undefined;
    try {
      return await this.slots.run(datasource.host, signal, async () => {
        started = performance.now();
        const session = await this.sessions.open(datasource, { connectTimeoutMs: timeoutMs, signal });
        const latencyMs = Math.max(1, Math.round(performance.now() - started));
        await session.close();
        return { ok: true, latencyMs } as const;
      });
    } catch (error) {
      if (error instanceof DatasourceConnectError) return { ok: false, error };
      if (signal.aborted && started === undefined) {
        const message = `cannot test datasource '${datasource.configName}' within ${timeoutMs} ms: too many connection tests are running; retry shortly`;
        return { ok: false, error: new DatasourceConnectError(datasource.configName, 'timeout', message) };
      }
      if (signal.aborted) {
        return {
          ok: false,
          error: new DatasourceConnectError(
            datasource.configName,
            'timeout',
            `cannot connect to datasource '${datasource.configName}': no answer within ${timeoutMs} ms`,
          ),
        };
      }
      if (error instanceof FetcherError) throw error;
      return {
        ok: false,
        error: new DatasourceConnectError(datasource.configName, 'unknown', `cannot connect to datasource '${datasource.configName}'`),
      };
    }
  }
}
