import { Injectable } from '@nestjs/common';
import { schemaCacheKey } from '../../engine/cache/schema-cache.js';
import type { ResolvedDatasource, SchemaSnapshot } from '../../engine/connectors/shared/engine-connector.js';
import { Engine } from '../../engine/engine.js';
import { ConnectionTestSlots } from '../connection-test-slots.js';

/**
 * Schema discovery for the API: live, or cache-first for validation. A live discovery takes a slot
 * of the caps connection tests use (CONNECTION_TEST_MAX_CONCURRENCY, CONNECTION_TEST_MAX_PER_HOST),
 * so a burst of discoveries cannot fan connections out to a server either; waiting for the slot
 * counts against its deadline.
 */
@Injectable()
export class SchemaService {
  constructor(
    private readonly engine: Engine,
    private readonly slots: ConnectionTestSlots,
  ) {}

  /**
   * Opens the datasource and discovers `schemas` (null: every readable namespace), all within
   * SCHEMA_DISCOVERY_TIMEOUT_MS: the catalog query is cancelled on the server in time for the call
   * to fail with FET-1043 (504) within that deadline, whatever the server does. A catalog larger
   * than SCHEMA_DISCOVERY_MAX_BYTES fails with FET-1044 (502), its connection closed.
   */
  discover(datasource: ResolvedDatasource, schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    return this.engine.discoverDatasource(datasource, schemas, { gate: this.slots.gate });
  }

  /**
   * The cache key carries the connection's version (`updatedAt`), so an update is never hidden by
   * an older snapshot; internal datasources cannot change while the process runs.
   */
  discoverCached(datasource: ResolvedDatasource, version: number, schemas: readonly string[]): Promise<SchemaSnapshot> {
    return this.engine.discoverDatasource(datasource, schemas, {
      cacheKey: schemaCacheKey(datasource.id, version, schemas),
      gate: this.slots.gate,
    });
  }
}
