import { Injectable } from '@nestjs/common';
import type { Principal } from '../../auth/principal.js';
import { mapWithConcurrency } from '../../engine/concurrency/map-with-concurrency.js';
import type { ErrorDetail } from '../../common/errors/fetcher.error.js';
import type { Filters, MappedFields } from '../../engine/request/data-request.js';
import type { ResolvedDatasource, SchemaSnapshot, TableReadRequest } from '../../engine/connectors/shared/engine-connector.js';
import { DatasourceResolver } from '../datasource-resolver.service.js';
import { DatasourceSessions } from '../datasource-sessions.service.js';
import { collectRequestedTables, matchRequestedTables, schemasOf, type RequestedTable } from '../../engine/planner/mapped-tables.js';

/** The datasources, tables and fields a request names (a job's, or one to validate before submitting). */
export interface SchemaRequest {
  readonly mappedFields: MappedFields;
  readonly filters?: Filters | null;
}

/** One datasource a request names, with the tables it asks for spelled as its engine folds names. */
export interface RequestedDatasource {
  readonly configName: string;
  /** Absent: no datasource of that name that the caller may use. */
  readonly datasource?: ResolvedDatasource;
  readonly tables: readonly RequestedTable[];
}

/** Discovers the given namespaces of one datasource (none on engines without schemas). */
export type DiscoverSchemas = (datasource: ResolvedDatasource, schemas: readonly string[]) => Promise<SchemaSnapshot>;

export type DatasourceMatch =
  | { readonly status: 'not_found'; readonly configName: string }
  | { readonly status: 'unavailable'; readonly configName: string; readonly datasource: ResolvedDatasource; readonly error: unknown }
  | {
      readonly status: 'matched';
      readonly configName: string;
      readonly datasource: ResolvedDatasource;
      /** Read requests for the tables that exist, sorted by result key. */
      readonly tables: readonly TableReadRequest[];
      /** Every unknown table, field and filter field; empty when the request fits the schema. */
      readonly details: readonly ErrorDetail[];
    };

/**
 * The step a job's planning and the validate-schema endpoint share: resolve the datasources a
 * request names, discover only the namespaces it names, and check every table, field and filter
 * field against them, reporting every offender rather than the first.
 */
@Injectable()
export class RequestedSchemaMatcher {
  constructor(
    private readonly resolver: DatasourceResolver,
    private readonly sessions: DatasourceSessions,
  ) {}

  /**
   * Every datasource of the request, sorted by config name (the order of the result). With a
   * principal, a datasource it may not use is as unknown as one nobody registered.
   */
  async collect(request: SchemaRequest, principal?: Principal): Promise<RequestedDatasource[]> {
    const configNames = Object.keys(request.mappedFields).sort();
    const resolved = await this.resolver.resolve(configNames, principal);
    const filters = request.filters ?? undefined;
    return configNames.map((configName) => {
      const datasource = resolved.get(configName);
      if (!datasource) return { configName, tables: [] };
      const tables = collectRequestedTables(
        request.mappedFields[configName],
        filters && Object.hasOwn(filters, configName) ? filters[configName] : undefined,
        this.sessions.defaultSchema(datasource),
        this.sessions.canonicalName(datasource),
      );
      return { configName, datasource, tables };
    });
  }

  /**
   * Discovers each datasource found (at most `concurrency` at once) and matches its tables.
   * Never rejects: a failed discovery is that datasource's outcome, so that the others finish
   * and whatever they opened can be closed.
   */
  match(requested: readonly RequestedDatasource[], concurrency: number, discover: DiscoverSchemas): Promise<DatasourceMatch[]> {
    return mapWithConcurrency(requested, concurrency, async ({ configName, datasource, tables }): Promise<DatasourceMatch> => {
      if (!datasource) return { status: 'not_found', configName };
      try {
        const snapshot = await discover(datasource, schemasOf(tables));
        return { status: 'matched', configName, datasource, ...matchRequestedTables(configName, tables, snapshot) };
      } catch (error) {
        return { status: 'unavailable', configName, datasource, error };
      }
    });
  }
}
