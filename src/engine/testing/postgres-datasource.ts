import { DatasourceType } from '../connectors/datasource-type.js';
import { datasourceRecord } from './datasource-records.js';
import type { ResolvedDatasource } from '../connectors/shared/engine-connector.js';

/** A resolved PostgreSQL datasource for specs that never connect to it; `overrides` sets what the spec is about. */
export function postgresDatasource(overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource {
  return datasourceRecord(
    DatasourceType.PostgreSQL,
    'ds',
    { host: 'db.example.com', port: 5432, name: 'd', user: 'u', password: 'p' },
    { id: 'x', ...overrides },
  );
}
