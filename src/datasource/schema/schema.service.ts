import { Injectable } from '@nestjs/common';
import { schemaCacheKey } from '../../engine/cache/schema-cache.js';
import type { ResolvedDatasource, SchemaSnapshot } from '../../engine/connectors/shared/engine-connector.js';
import { Engine } from '../../engine/engine.js';

/** Schema discovery for the API: live, or cache-first for validation. */
@Injectable()
export class SchemaService {
  constructor(private readonly engine: Engine) {}

  /**
   * Opens the datasource and discovers `schemas` (null: every readable namespace), all within
   * SCHEMA_DISCOVERY_TIMEOUT_MS: the catalog query is cancelled on the server in time for the call
   * to fail with FET-1043 (504) within that deadline, whatever the server does.
   */
  discover(datasource: ResolvedDatasource, schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    return this.engine.discoverDatasource(datasource, schemas);
  }

  /**
   * The cache key carries the connection's version (`updatedAt`), so an update is never hidden by
   * an older snapshot; internal datasources cannot change while the process runs.
   */
  discoverCached(datasource: ResolvedDatasource, version: number, schemas: readonly string[]): Promise<SchemaSnapshot> {
    return this.engine.discoverDatasource(datasource, schemas, { cacheKey: schemaCacheKey(datasource.id, version, schemas) });
  }
}
