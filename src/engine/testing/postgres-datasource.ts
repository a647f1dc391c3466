import { DatasourceType } from '../connectors/datasource-type.js';
import type { ResolvedDatasource } from '../connectors/shared/engine-connector.js';

/** A resolved PostgreSQL datasource for specs that never connect to it; `overrides` sets what the spec is about. */
export function postgresDatasource(overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource {
  return {
    id: 'x',
    configName: 'ds',
    type: DatasourceType.PostgreSQL,
    host: 'db.example.com',
    port: 5432,
    databaseName: 'd',
    schemaName: null,
    userName: 'u',
    password: 'p',
    ssl: { mode: null },
    metadata: {},
    internal: false,
    ...overrides,
  };
}
