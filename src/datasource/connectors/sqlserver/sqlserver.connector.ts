import { Injectable } from '@nestjs/common';
import { DatasourceType } from '../../datasource-type.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { plaintextPasswordRefused } from '../shared/plaintext-password.js';
import { ConnectionWatch, connectPool, poolConfig, type ConnectedPool } from './sqlserver-client.js';
import { toConnectError } from './sqlserver-connect-error.js';
import { SqlServerSession } from './sqlserver-session.js';
import { tlsOptions, type SqlServerTls } from './sqlserver-ssl.js';

/** SQL Server (2012+) and Azure SQL through mssql/tedious. */
@Injectable()
export class SqlServerConnector implements EngineConnector {
  readonly type = DatasourceType.SqlServer;

  /** The connection's schema, `dbo` when it names none (an empty name counts as none). */
  defaultSchema(datasource: ResolvedDatasource): string {
    return datasource.schemaName ? datasource.schemaName : 'dbo';
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal } = options;
    signal?.throwIfAborted();
    let tls: SqlServerTls;
    try {
      tls = tlsOptions(datasource.ssl);
      // Without encryption tedious sends LOGIN7, password included, as it is (the TDS password
      // "obfuscation" is a reversible nibble swap): refuse before any socket is opened.
      if (tls.encrypt === false && datasource.password !== '' && options.allowPlaintextPassword === false) {
        throw plaintextPasswordRefused(
          `with SSL mode "${tls.mode}" the login, password included, travels in clear text`,
          '"true" or "strict"',
        );
      }
    } catch (error) {
      throw toConnectError(error, datasource, connectTimeoutMs);
    }

    const watch = new ConnectionWatch(tls.encrypt === true);
    let connected: ConnectedPool;
    try {
      connected = await connectPool(poolConfig(datasource, tls, connectTimeoutMs, watch, options.egress), watch, connectTimeoutMs, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toConnectError(error, datasource, connectTimeoutMs, { serverErrors: watch.loginErrors, sslMode: tls.mode });
    }
    return new SqlServerSession(connected, { configName: datasource.configName, defaultSchema: this.defaultSchema(datasource) });
  }
}
