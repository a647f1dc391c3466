import { Injectable } from '@nestjs/common';
import { DatasourceType } from '../../datasource-type.js';
import type { ConnectorSession, EngineConnector, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { connectMongo, type MongoClientSettings, mongoClientSettings } from './mongodb-client.js';
import { toConnectError } from './mongodb-connect-error.js';
import { MongoDbSession } from './mongodb-session.js';

/**
 * MongoDB through the official driver. A collection is a table, a field path (`a` or `a.b`) a
 * column: discovery samples documents, reads project exactly the requested paths.
 */
@Injectable()
export class MongoDbConnector implements EngineConnector {
  readonly type = DatasourceType.MongoDB;

  /** Collections are never qualified: the connected database is the namespace, and a dotted name is a collection name. */
  defaultSchema(_datasource: ResolvedDatasource): null {
    return null;
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal } = options;
    signal?.throwIfAborted();
    let settings: MongoClientSettings;
    try {
      settings = mongoClientSettings(datasource, connectTimeoutMs, options.egress);
    } catch (error) {
      throw toConnectError(error, datasource, connectTimeoutMs);
    }
    try {
      const client = await connectMongo(settings, datasource.databaseName, connectTimeoutMs, signal);
      return new MongoDbSession(client, client.db(datasource.databaseName), { configName: datasource.configName });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toConnectError(error, datasource, connectTimeoutMs);
    }
  }
}
