import { SILENT_LOGGER, type EngineLogger } from '../../support/engine-logger.js';
import { ConnectorBase } from '../shared/connector-base.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import type { CursorKind } from '../../incremental/cursor-range.js';
import { postgresCursorKind } from './postgres-range-sql.js';
import { cancelConnectTimeoutMs, OpenAttempt } from '../shared/open-attempt.js';
import { clientConfig, connectClient } from './postgres-client.js';
import { classifyConnectError, toConnectError } from './postgres-connect-error.js';
import type { CopyRefusedError } from './postgres-copy-read.js';
import { type CopyPreference, PostgresSession } from './postgres-session.js';
import { POSTGRES_ENGINE } from './postgres-engine.js';
import { sslPlan } from './postgres-ssl.js';

/**
 * `copy` (the default): rows through `COPY … TO STDOUT`, and through a cursor for a connection
 * whose server refused COPY once. `cursor`: always a cursor.
 */
export type PostgresReadPath = 'copy' | 'cursor';

export class PostgresConnector extends ConnectorBase {
  readonly facts = POSTGRES_ENGINE;
  /** Connection records whose server refused COPY: remembered for the life of the process. */
  private readonly copyRefused = new Set<string>();

  constructor(
    private readonly readPath: PostgresReadPath = 'copy',
    private readonly logger: EngineLogger = SILENT_LOGGER,
  ) {
    super();
  }

  override defaultSchema(datasource: ResolvedDatasource): string {
    return datasource.schemaName ? datasource.schemaName : 'public';
  }

  cursorKind(column: ColumnInfo): CursorKind | null {
    return postgresCursorKind(column);
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal, egress } = options;
    const refusePlaintext = options.allowPlaintextPassword === false;
    const attempt = new OpenAttempt(datasource, options, toConnectError);
    const plan = attempt.prepare(() => sslPlan(datasource.ssl));
    const { connected, ssl } = await attempt.connectWithFallback(
      plan,
      (ssl) => connectClient(clientConfig(datasource, ssl, connectTimeoutMs, egress), connectTimeoutMs, signal, refusePlaintext),
      // `allow` retries over TLS after a rejection; if the server has no TLS either, the
      // first answer (e.g. unknown role) is the one that explains the failure.
      (first, retry) => (classifyConnectError(retry) === 'tls' ? first : retry),
    );

    const cancelTimeoutMs = cancelConnectTimeoutMs(connectTimeoutMs);
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
        this.logger.warn(`connection '${datasource.configName}': ${error.message}; its reads use a cursor from now on`, {
          datasource: datasource.configName,
        });
      },
    };
  }
}
