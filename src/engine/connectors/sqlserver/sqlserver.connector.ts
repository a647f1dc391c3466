import { ConnectorBase } from '../shared/connector-base.js';
import type { CursorKind } from '../../incremental/cursor-range.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { OpenAttempt } from '../shared/open-attempt.js';
import { plaintextPasswordRefused } from '../shared/plaintext-password.js';
import { ConnectionWatch, connectPool, poolConfig } from './sqlserver-client.js';
import { toConnectError } from './sqlserver-connect-error.js';
import { SQLSERVER_ENGINE } from './sqlserver-engine.js';
import { cursorKindOf } from './sqlserver-range-read.js';
import { SqlServerSession } from './sqlserver-session.js';
import { tlsOptions } from './sqlserver-ssl.js';

/** SQL Server (2012+) and Azure SQL through mssql/tedious. */
export class SqlServerConnector extends ConnectorBase {
  readonly facts = SQLSERVER_ENGINE;

  /** The connection's schema, `dbo` when it names none (an empty name counts as none). */
  override defaultSchema(datasource: ResolvedDatasource): string {
    return datasource.schemaName ? datasource.schemaName : 'dbo';
  }

  /** Integers, exact decimals, dates and date-times (sqlserver-range-read.ts). */
  cursorKind(column: ColumnInfo): CursorKind | null {
    return cursorKindOf(column);
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal } = options;
    const attempt = new OpenAttempt(datasource, options, toConnectError);
    const tls = attempt.prepare(() => {
      const tls = tlsOptions(datasource.ssl);
      // Without encryption tedious sends LOGIN7, password included, as it is (the TDS password
      // "obfuscation" is a reversible nibble swap): refuse before any socket is opened.
      if (tls.encrypt === false && datasource.password !== '' && options.allowPlaintextPassword === false) {
        throw plaintextPasswordRefused(
          `with SSL mode "${tls.mode}" the login, password included, travels in clear text`,
          '"true" or "strict"',
        );
      }
      return tls;
    });

    const watch = new ConnectionWatch(tls.encrypt === true);
    const connected = await attempt.connect(
      () => connectPool(poolConfig(datasource, tls, connectTimeoutMs, watch, options.egress), watch, connectTimeoutMs, signal),
      (error) => toConnectError(error, datasource, connectTimeoutMs, { serverErrors: watch.loginErrors, sslMode: tls.mode }),
    );
    return new SqlServerSession(connected, { configName: datasource.configName, defaultSchema: this.defaultSchema(datasource) });
  }
}
