import { Injectable } from '@nestjs/common';
import { ConnectorRegistry } from './connectors/connector-registry.js';
import type { ResolvedDatasource } from './connectors/engine-connector.js';
import { DatasourceConnectError } from './datasource.error.js';

export type ConnectionTestResult =
  | { readonly ok: true; readonly latencyMs: number }
  | { readonly ok: false; readonly error: DatasourceConnectError };

/** Opens a real connection to a datasource and closes it again. */
@Injectable()
export class ConnectionTester {
  constructor(private readonly connectors: ConnectorRegistry) {}

  async test(datasource: ResolvedDatasource, timeoutMs: number): Promise<ConnectionTestResult> {
    const connector = this.connectors.find(datasource.type);
    if (!connector) {
      return {
        ok: false,
        error: new DatasourceConnectError(datasource.configName, 'unknown', `engine ${datasource.type} is not supported yet`),
      };
    }
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const session = await connector.open(datasource, { connectTimeoutMs: timeoutMs, signal });
      const latencyMs = Math.max(1, Math.round(performance.now() - started));
      await session.close();
      return { ok: true, latencyMs };
    } catch (error) {
      if (error instanceof DatasourceConnectError) return { ok: false, error };
      const reason = signal.aborted ? 'timeout' : 'unknown';
      return { ok: false, error: new DatasourceConnectError(datasource.configName, reason, `cannot connect to datasource '${datasource.configName}'`) };
    }
  }
}
