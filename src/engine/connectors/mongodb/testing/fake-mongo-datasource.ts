import { DatasourceType } from '../../datasource-type.js';
import type { ResolvedDatasource } from '../../shared/engine-connector.js';

/** The record a spec connects with to a fake MongoDB server on `port` (database `shop`). */
export const fakeMongoDatasource = (port: number, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource => ({
  id: 'id-1',
  configName: 'docs_db',
  type: DatasourceType.MongoDB,
  host: '127.0.0.1',
  port,
  databaseName: 'shop',
  schemaName: null,
  userName: '',
  password: '',
  ssl: { mode: null },
  metadata: {},
  internal: false,
  ...overrides,
});
