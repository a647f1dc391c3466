import { Injectable } from '@nestjs/common';
import { FetcherError } from '../common/errors/fetcher.error.js';
import type { ResolvedDatasource } from './connectors/engine-connector.js';
import { DatasourceConnectError } from './datasource.error.js';
import { DatasourceSessions } from './datasource-sessions.service.js';

export type ConnectionTestResult =
  | { readonly ok: true; readonly latencyMs: number }
  | { readonly ok: false; readonly error: DatasourceConnectError };

/**
 * Opens a real connection to a datasource and closes it again. A host the SSRF guard refuses is
 * thrown (FET-0414), not reported as a failed test.
 */
@Injectable()
export class ConnectionTester {
  constructor(private readonly sessions: DatasourceSessions) {}

  async test(datasource: ResolvedDatasource, timeoutMs: number): Promise<ConnectionTestResult> {
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const session = await this.sessions.open(datasource, { connectTimeoutMs: timeoutMs, signal });
      const latencyMs = Math.max(1, Math.round(performance.now() - started));
      await session.close();
      return { ok: true, latencyMs };
    } catch (error) {
      if (error instanceof DatasourceConnectError) return { ok: false, error };
      if (signal.aborted) {
        return { ok: false, error: new DatasourceConnectError(datasource.configName, 'timeout', `cannot connect to datasource '${datasource.configName}': no answer within ${timeoutMs} ms`) };
      }
      if (error instanceof FetcherError) throw error;
      return { ok: false, error: new DatasourceConnectError(datasource.configName, 'unknown', `cannot connect to datasource '${datasource.configName}'`) };
    }
  }
}
