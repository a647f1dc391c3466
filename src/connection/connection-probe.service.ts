import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { FetCode } from '../common/errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../common/errors/fetcher.error.js';
import { RATE_LIMITER, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { RateLimitError } from '../common/rate-limit/rate-limit.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { checkDataRequest } from '../job/data-request-check.js';
import type { MappedFields } from '../request/data-request.js';
import { ConnectionQueryService, type LoadedConnection } from './connection-query.service.js';
import { ConnectionTester } from '../datasource/connection-tester.service.js';
import type { ResolvedDatasource } from '../datasource/connectors/shared/engine-connector.js';
import { DatasourceConnectError, DatasourceError } from '../datasource/datasource.error.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { DatasourceSessions } from '../datasource/datasource-sessions.service.js';
import { ConnectionRepository } from '../datasource/connection.repository.js';
import type { ConnectionSchemaDto, ConnectionTestResultDto, SchemaValidationSuccessDto } from './dto/schema.dto.js';
import { InternalDatasources } from '../datasource/internal/internal-datasources.service.js';
import { collectRequestedTables, compareKeys, matchRequestedTables, schemasOf } from '../datasource/schema/mapped-tables.js';
import { SchemaService } from '../datasource/schema/schema.service.js';

const TEST_TIMEOUT_MS = 10_000;
const RATE_WINDOW_MS = 60_000;

/** Endpoints that reach into the database behind a connection: test, schema, validate-schema. */
@Injectable()
export class ConnectionProbeService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly queries: ConnectionQueryService,
    private readonly connections: ConnectionRepository,
    private readonly resolver: DatasourceResolver,
    private readonly sessions: DatasourceSessions,
    private readonly tester: ConnectionTester,
    private readonly schemas: SchemaService,
  ) {}

  async test(id: string, principal: Principal): Promise<ConnectionTestResultDto> {
    const loaded = await this.queries.load(id, principal);
    const limit = this.config.connectionTestRateLimitPerMinute;
    const decision = await this.limiter.consume(`connection-test:${id}`, limit, RATE_WINDOW_MS);
    if (!decision.allowed) throw new RateLimitError('Connection test', limit, decision.retryAfterSeconds);
    const outcome = await this.tester.test(this.resolved(loaded), TEST_TIMEOUT_MS);
    if (!outcome.ok) throw connectionFailed(FetCode.ConnectionTestFailed, outcome.error);
    return { status: 'success', message: 'Connection successful', latencyMs: outcome.latencyMs };
  }

  /** Live discovery of every readable namespace: tables sorted by name, fields in column order. */
  async schema(id: string, principal: Principal): Promise<ConnectionSchemaDto> {
    const loaded = await this.queries.load(id, principal);
    const datasource = this.resolved(loaded);
    const snapshot = await this.schemas.discover(datasource, null).catch((error: unknown) => {
      throw discoveryFailure(error);
    });
    const tables = [...snapshot.tables.values()]
      .sort((a, b) => compareKeys(a.key, b.key))
      .map((table) => ({ name: table.key, fields: table.columns.map((column) => column.name) }));
    return { id: datasource.id, configName: datasource.configName, databaseName: datasource.databaseName, type: datasource.type, tables };
  }

  /**
   * The same checks a job's planning does (SPEC §4.1), before submitting: 200, or 422 listing every
   * unknown datasource, table and field. Schemas come from the cache when fresh.
   */
  async validateSchema(mappedFields: MappedFields, principal: Principal): Promise<SchemaValidationSuccessDto> {
    checkDataRequest({ mappedFields }, this.config.extraction);
    const configNames = Object.keys(mappedFields).sort();
    // Datasources the principal may not use are reported as not found, like any unknown name.
    const resolved = await this.resolver.resolve(configNames, principal);
    const versions = await this.versions([...resolved.values()]);
    const details: ErrorDetail[] = [];
    await Promise.all(
      configNames.map(async (configName) => {
        const datasource = resolved.get(configName);
        if (!datasource) return void details.push({ type: 'datasource_not_found', datasource: configName });
        const requested = collectRequestedTables(
          mappedFields[configName],
          undefined,
          this.sessions.defaultSchema(datasource),
          this.sessions.canonicalName(datasource),
        );
        try {
          const snapshot = await this.schemas.discoverCached(datasource, versions.get(configName) ?? 0, schemasOf(requested));
          details.push(...matchRequestedTables(configName, requested, snapshot).details);
        } catch (error) {
          if (error instanceof FetcherError) throw error;
          const reason = error instanceof DatasourceConnectError ? error.reason : 'unknown';
          details.push({ type: 'datasource_unavailable', datasource: configName, reason, message: safeMessage(error) });
        }
      }),
    );
    if (details.length === 0)
      return { status: 'success', message: 'Schema validated successfully. All datasources, tables, and fields exist.' };
    details.sort((a, b) =>
      compareKeys(`${a.datasource}\0${a.table ?? ''}\0${a.field ?? ''}`, `${b.datasource}\0${b.table ?? ''}\0${b.field ?? ''}`),
    );
    throw new DatasourceError(
      FetCode.SchemaValidationFailed,
      `Schema validation found ${details.length} inconsistenc${details.length === 1 ? 'y' : 'ies'}.`,
      { details },
    );
  }

  private resolved(loaded: LoadedConnection): ResolvedDatasource {
    return loaded.internal ? InternalDatasources.resolved(loaded.datasource) : this.resolver.fromRecord(loaded.record);
  }

  /** The updatedAt of each stored connection, which versions its cached schema. */
  private async versions(datasources: ResolvedDatasource[]): Promise<Map<string, number>> {
    const stored = datasources.filter((datasource) => !datasource.internal).map((datasource) => datasource.configName);
    const records = await this.connections.findByConfigNames(stored);
    return new Map(records.map((record) => [record.configName, record.updatedAt.getTime()]));
  }
}

function safeMessage(error: unknown): string {
  return error instanceof DatasourceConnectError || error instanceof Error ? error.message : 'discovery failed';
}

function connectionFailed(code: FetCode, error: DatasourceConnectError): DatasourceError {
  return new DatasourceError(code, error.message, { extra: { reason: error.reason } });
}

function discoveryFailure(error: unknown): unknown {
  if (error instanceof FetcherError) return error;
  if (error instanceof DatasourceConnectError) return connectionFailed(FetCode.ConnectionTestFailed, error);
  return new DatasourceError(FetCode.SchemaDiscoveryFailed, `Failed to retrieve database schema information: ${safeMessage(error)}`, {
    extra: { reason: 'unknown' },
  });
}
