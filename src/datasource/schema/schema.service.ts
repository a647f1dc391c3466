import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import type { ResolvedDatasource, SchemaSnapshot } from '../connectors/engine-connector.js';
import { DatasourceSessions } from '../datasource-sessions.service.js';
import { SCHEMA_CACHE, schemaCacheKey, type SchemaCache } from './schema-cache.js';

const DISCOVERY_CONNECT_TIMEOUT_MS = 10_000;

/** Schema discovery for the API: live, or cache-first for validation. */
@Injectable()
export class SchemaService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: DatasourceSessions,
    @Inject(SCHEMA_CACHE) private readonly cache: SchemaCache,
  ) {}

  /** Opens the datasource and discovers `schemas` (null: every readable namespace). */
  async discover(datasource: ResolvedDatasource, schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    const session = await this.sessions.open(datasource, {
      connectTimeoutMs: DISCOVERY_CONNECT_TIMEOUT_MS,
      signal: AbortSignal.timeout(DISCOVERY_CONNECT_TIMEOUT_MS * 3),
    });
    try {
      return await session.discover(schemas);
    } finally {
      await session.close();
    }
  }

  /**
   * The cache key carries the connection's version (`updatedAt`), so an update is never hidden by
   * an older snapshot; internal datasources cannot change while the process runs.
   */
  async discoverCached(datasource: ResolvedDatasource, version: number, schemas: readonly string[]): Promise<SchemaSnapshot> {
    const key = schemaCacheKey(datasource.id, version, schemas);
    const cached = await this.cache.get(key);
    if (cached) return cached;
    const snapshot = await this.discover(datasource, schemas);
    await this.cache.set(key, snapshot, this.config.schemaCacheTtlSeconds);
    return snapshot;
  }
}
