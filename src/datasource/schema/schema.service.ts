import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import type { ConnectorSession, ResolvedDatasource, SchemaSnapshot } from '../../engine/connectors/shared/engine-connector.js';
import { ABORT_BUDGET_MS } from '../../engine/connectors/shared/abortable-read.js';
import { DatasourceError } from '../datasource.error.js';
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

  /**
   * Opens the datasource and discovers `schemas` (null: every readable namespace), all within
   * SCHEMA_DISCOVERY_TIMEOUT_MS: the catalog query is cancelled on the server in time for the call
   * to fail with FET-1043 (504) within that deadline, whatever the server does.
   */
  async discover(datasource: ResolvedDatasource, schemas: readonly string[] | null): Promise<SchemaSnapshot> {
    const deadlineMs = this.config.schemaDiscoveryTimeoutMs;
    // The abort fires early enough for the cancel (at most ABORT_BUDGET_MS) to fit in the deadline.
    const deadline = AbortSignal.timeout(Math.max(Math.floor(deadlineMs / 2), deadlineMs - ABORT_BUDGET_MS));
    let session: ConnectorSession | undefined;
    try {
      session = await this.sessions.open(datasource, {
        connectTimeoutMs: Math.min(DISCOVERY_CONNECT_TIMEOUT_MS, deadlineMs),
        signal: deadline,
      });
      return await session.discover(schemas, deadline);
    } catch (error) {
      if (!deadline.aborted) throw error;
      throw new DatasourceError(
        FetCode.SchemaDiscoveryTimeout,
        `datasource '${datasource.configName}' did not answer its schema discovery within ${deadlineMs} ms; the query was cancelled`,
        { extra: { reason: 'timeout' } },
      );
    } finally {
      await session?.close();
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
