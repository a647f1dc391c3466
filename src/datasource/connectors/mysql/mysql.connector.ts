import { Injectable } from '@nestjs/common';
import { DatasourceType } from '../../datasource-type.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { connectionOptions, connectMySql, type ConnectedMySql } from './mysql-client.js';
import { toConnectError } from './mysql-connect-error.js';
import { MySqlSession } from './mysql-session.js';
import { sslPlan, type SslPlan } from './mysql-ssl.js';

/** The kill connection gets at most this long, so an abort stays prompt on a slow network. */
const MAX_CANCEL_CONNECT_MS = 5_000;

/** MySQL and MariaDB through mysql2. */
@Injectable()
export class MySqlConnector implements EngineConnector {
  readonly type = DatasourceType.MySQL;

  /** The connected database is the namespace: table keys are always bare names. */
  defaultSchema(_datasource: ResolvedDatasource): null {
    return null;
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal } = options;
    const transport = { egress: options.egress, allowPlaintextPassword: options.allowPlaintextPassword };
    signal?.throwIfAborted();
    let plan: SslPlan;
    try {
      plan = sslPlan(datasource.ssl);
    } catch (error) {
      throw toConnectError(error, datasource, connectTimeoutMs);
    }

    let ssl = plan.first;
    let connected: ConnectedMySql;
    try {
      connected = await connectMySql(connectionOptions(datasource, ssl, connectTimeoutMs, transport), connectTimeoutMs, signal);
    } catch (first) {
      if (signal?.aborted) throw signal.reason;
      if (plan.fallback === undefined || !plan.fallback.when(first)) throw toConnectError(first, datasource, connectTimeoutMs);
      // `preferred` and a server without TLS: plain TCP, as go-sql-driver does.
      ssl = plan.fallback.ssl;
      try {
        connected = await connectMySql(connectionOptions(datasource, ssl, connectTimeoutMs, transport), connectTimeoutMs, signal);
      } catch (second) {
        if (signal?.aborted) throw signal.reason;
        throw toConnectError(second, datasource, connectTimeoutMs);
      }
    }

    const cancelTimeoutMs = connectTimeoutMs > 0 ? Math.min(connectTimeoutMs, MAX_CANCEL_CONNECT_MS) : MAX_CANCEL_CONNECT_MS;
    return new MySqlSession(connected.connection, {
      configName: datasource.configName,
      mariadb: /mariadb/i.test(connected.serverVersion),
      cancelOptions: connectionOptions(datasource, ssl, cancelTimeoutMs, transport),
      cancelTimeoutMs,
    });
  }
}
