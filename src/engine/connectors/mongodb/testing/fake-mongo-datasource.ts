import { datasourceRecord } from '../../../testing/datasource-records.js';
import { DatasourceType } from '../../datasource-type.js';
import type { ResolvedDatasource, TableInfo } from '../../shared/engine-connector.js';

/** The record a spec connects with to a fake MongoDB server on `port` (database `shop`), without a login. */
export const fakeMongoDatasource = (port: number, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource =>
  datasourceRecord(
    DatasourceType.MongoDB,
    'docs_db',
    { host: '127.0.0.1', port, name: 'shop', user: '', password: '' },
    { id: 'id-1', ...overrides },
  );

/** A collection as discovery lists it, keyed by `_id`: each field with the one BSON type it holds. */
export const fakeCollection = (name: string, fields: readonly (readonly [field: string, bsonType: string])[]): TableInfo => ({
  schema: null,
  name,
  key: name,
  columns: fields.map(([field, bsonType]) => ({ name: field, dataType: bsonType, engineType: { bsonTypes: [bsonType] } })),
  primaryKey: ['_id'],
});
