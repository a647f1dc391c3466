import { ConnectorBase } from '../shared/connector-base.js';
import type { CursorKind } from '../../incremental/cursor-range.js';
import type { ColumnInfo, ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';
import { OpenAttempt } from '../shared/open-attempt.js';
import { connectMongo, mongoClientSettings } from './mongodb-client.js';
import { toConnectError } from './mongodb-connect-error.js';
import { MONGODB_ENGINE } from './mongodb-engine.js';
import { cursorKindOf } from './mongodb-range-read.js';
import { MongoDbSession } from './mongodb-session.js';

/**
 * MongoDB through the official driver. A collection is a table, a field path (`a` or `a.b`) a
 * column: discovery samples documents, reads project exactly the requested paths.
 */
export class MongoDbConnector extends ConnectorBase {
  readonly facts = MONGODB_ENGINE;

  /** ObjectId, Date, int32/int64 and Decimal128 fields, each of one type (mongodb-range-read.ts). */
  cursorKind(column: ColumnInfo): CursorKind | null {
    return cursorKindOf(column);
  }

  async open(datasource: ResolvedDatasource, options: OpenSessionOptions): Promise<ConnectorSession> {
    const { connectTimeoutMs, signal } = options;
    const attempt = new OpenAttempt(datasource, options, toConnectError);
    const settings = attempt.prepare(() => mongoClientSettings(datasource, connectTimeoutMs, options.egress));
    return attempt.connect(async () => {
      const client = await connectMongo(settings, datasource.databaseName, connectTimeoutMs, signal);
      return new MongoDbSession(client, client.db(datasource.databaseName), { configName: datasource.configName });
    });
  }
}
