import { Injectable } from '@nestjs/common';
import { DatasourceType } from '../../datasource-type.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from '../engine-connector.js';
import { clientConfig, connectClient, type ConnectedClient } from './postgres-client.js';
import { classifyConnectError, toConnectError } from './postgres-connect-error.js';
import { PostgresSession } from './postgres-session.js';
import { sslPlan, type SslPlan } from './postgres-ssl.js';

/** The cancel connection gets at most this long, so an abort stays prompt on a slow network. */
const MAX_CANCEL_CONNECT_MS = 5_000;

@Injectable()
export class PostgresConnector implements EngineConnector {
  readonly type = DatasourceType.PostgreSQL;

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
    });
  }
}
