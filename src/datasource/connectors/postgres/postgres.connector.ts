import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DatasourceType } from '../../datasource-type.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { clientConfig, connectClient, type ConnectedClient } from './postgres-client.js';
import { classifyConnectError, toConnectError } from './postgres-connect-error.js';
import type { CopyRefusedError } from './postgres-copy-read.js';
import { type CopyPreference, PostgresSession } from './postgres-session.js';
import { sslPlan, type SslPlan } from './postgres-ssl.js';

/** The cancel connection gets at most this long, so an abort stays prompt on a slow network. */
const MAX_CANCEL_CONNECT_MS = 5_000;

/**
 * `copy` (the default): rows through `COPY … TO STDOUT`, and through a cursor for a connection
 * whose server refused COPY once. `cursor`: always a cursor.
 */
export type PostgresReadPath = 'copy' | 'cursor';
export const POSTGRES_READ_PATH = Symbol('POSTGRES_READ_PATH');

@Injectable()
export class PostgresConnector implements EngineConnector {
  readonly type = DatasourceType.PostgreSQL;
  private readonly logger = new Logger('PostgresConnector');
  /** Connection records whose server refused COPY: remembered for the life of the process. */
  private readonly copyRefused = new Set<string>();

  constructor(@Optional() @Inject(POSTGRES_READ_PATH) private readonly readPath: PostgresReadPath = 'copy') {}

  defaultSchema(datasource: ResolvedDatasource): string {
    return datasource.schemaName ? datasource.schemaName : 'public';
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal, egress } = options;
    const refusePlaintext = options.allowPlaintextPassword === false;
    signal?.throwIfAborted();
    let plan: SslPlan;
    try {
      plan = sslPlan(datasource.ssl);
    } catch (error) {
      throw toConnectError(error, datasource, connectTimeoutMs);
    }

    let ssl = plan.first;
    let connected: ConnectedClient;
    try {
      connected = await connectClient(clientConfig(datasource, ssl, connectTimeoutMs, egress), connectTimeoutMs, signal, refusePlaintext);
    } catch (first) {
      if (signal?.aborted) throw signal.reason;
      if (plan.fallback === undefined || !plan.fallback.when(first)) throw toConnectError(first, datasource, connectTimeoutMs);
      ssl = plan.fallback.ssl;
      try {
        connected = await connectClient(clientConfig(datasource, ssl, connectTimeoutMs, egress), connectTimeoutMs, signal, refusePlaintext);
      } catch (second) {
        if (signal?.aborted) throw signal.reason;
        // `allow` retries over TLS after a rejection; if the server has no TLS either, the
        // first answer (e.g. unknown role) is the one that explains the failure.
        const reported = classifyConnectError(second) === 'tls' ? first : second;
        throw toConnectError(reported, datasource, connectTimeoutMs);
      }
    }

    const cancelTimeoutMs = connectTimeoutMs > 0 ? Math.min(connectTimeoutMs, MAX_CANCEL_CONNECT_MS) : MAX_CANCEL_CONNECT_MS;
    return new PostgresSession(connected.client, {
      configName: datasource.configName,
      defaultSchema: this.defaultSchema(datasource),
      backendPid: connected.backendPid,
      cancelConfig: clientConfig(datasource, ssl, cancelTimeoutMs, egress),
      cancelTimeoutMs,
      refusePlaintextPassword: refusePlaintext,
      serverEncoding: connected.serverEncoding,
      copy: this.copyPreference(datasource),
    });
  }

  private copyPreference(datasource: ResolvedDatasource): CopyPreference {
    const key = datasource.id;
    const refused = this.copyRefused;
    const copy = this.readPath === 'copy';
    return {
      get enabled() {
        return copy && !refused.has(key);
      },
      refused: (error: CopyRefusedError) => {
        if (this.copyRefused.has(key)) return;
        this.copyRefused.add(key);
        this.logger.warn(`connection '${datasource.configName}': ${error.message}; its reads use a cursor from now on`);
      },
    };
  }
}
