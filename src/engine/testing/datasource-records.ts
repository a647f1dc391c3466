import { randomBytes } from 'node:crypto';
import type { DatasourceType } from '../connectors/datasource-type.js';
import type { ResolvedDatasource } from '../connectors/shared/engine-connector.js';

/** Where a record points and with which login: what differs from one spec's record to another's. */
export interface DatasourcePlace {
  readonly host: string;
  readonly port: number;
  /** The database (PostgreSQL, MySQL, SQL Server, MongoDB) or service (Oracle). */
  readonly name: string;
  readonly user: string;
  readonly password: string;
}

/**
 * A decrypted connection record, as the connectors receive it, for `place`: no schema, no SSL,
 * no metadata, not internal, and an id of its own unless `overrides` (what the spec is about) names one.
 */
export function datasourceRecord(
  type: DatasourceType,
  configName: string,
  place: DatasourcePlace,
  overrides: Partial<ResolvedDatasource> = {},
): ResolvedDatasource {
  return {
    id: `00000000-0000-4000-8000-${randomBytes(6).toString('hex')}`,
    configName,
    type,
    host: place.host,
    port: place.port,
    databaseName: place.name,
    schemaName: null,
    userName: place.user,
    password: place.password,
    ssl: { mode: null },
    metadata: {},
    internal: false,
    ...overrides,
  };
}
