import { ConnectorBase } from '../shared/connector-base.js';
import type { CursorKind } from '../../incremental/cursor-range.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { cancelConnectTimeoutMs, OpenAttempt } from '../shared/open-attempt.js';
import { connectionOptions, connectMySql } from './mysql-client.js';
import { toConnectError } from './mysql-connect-error.js';
import { MYSQL_ENGINE } from './mysql-engine.js';
import { MySqlSession } from './mysql-session.js';
import { sslPlan } from './mysql-ssl.js';
import { mySqlCursorKind } from './mysql-types.js';

/** MySQL and MariaDB through mysql2. */
export class MySqlConnector extends ConnectorBase {
  readonly facts = MYSQL_ENGINE;

  cursorKind(column: ColumnInfo): CursorKind | null {
    return mySqlCursorKind(column);
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal } = options;
    const transport = { egress: options.egress, allowPlaintextPassword: options.allowPlaintextPassword };
    const attempt = new OpenAttempt(datasource, options, toConnectError);
    const plan = attempt.prepare(() => sslPlan(datasource.ssl));
    // `preferred` and a server without TLS: plain TCP, as go-sql-driver does.
    const { connected, ssl } = await attempt.connectWithFallback(plan, (ssl) =>
      connectMySql(connectionOptions(datasource, ssl, connectTimeoutMs, transport), connectTimeoutMs, signal),
    );

    const cancelTimeoutMs = cancelConnectTimeoutMs(connectTimeoutMs);
    return new MySqlSession(connected.connection, {
      configName: datasource.configName,
      mariadb: /mariadb/i.test(connected.serverVersion),
      cancelOptions: connectionOptions(datasource, ssl, cancelTimeoutMs, transport),
      cancelTimeoutMs,
    });
  }
}
