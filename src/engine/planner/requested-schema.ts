import { mapWithConcurrency } from '../concurrency/map-with-concurrency.js';
import type { ResolvedDatasource, SchemaSnapshot, TableReadRequest } from '../connectors/shared/engine-connector.js';
import type { ErrorDetail } from '../errors/fetcher-error.js';
import type { Filters, MappedFields } from '../request/data-request.js';
import { collectRequestedTables, matchRequestedTables, schemasOf, type RequestedTable } from './mapped-tables.js';

/** The datasources, tables and fields a request names (an extraction's, or one to validate before submitting). */
export interface SchemaRequest {
  readonly mappedFields: MappedFields;
  readonly filters?: Filters | null;
}

/** One datasource a request names, with the tables it asks for spelled as its engine folds names. */
export interface RequestedDatasource {
  readonly configName: string;
  /** Absent: no datasource of that name (that the caller may use). */
  readonly datasource?: ResolvedDatasource;
  readonly tables: readonly RequestedTable[];
}

/** How an engine spells names: its default namespace and its name folding. */
export interface NameRules {
  defaultSchema(datasource: ResolvedDatasource): string | null;
  canonicalName(datasource: ResolvedDatasource): (name: string) => string;
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
 * Every datasource of the request, sorted by config name (the order of the result), with its
 * tables grouped by result key. `datasources` holds those found; the others are kept as unknown.
 */
export function collectRequested(
  request: SchemaRequest,
  datasources: ReadonlyMap<string, ResolvedDatasource>,
  names: NameRules,
): RequestedDatasource[] {
  const filters = request.filters ?? undefined;
  return Object.keys(request.mappedFields)
    .sort()
    .map((configName) => {
      const datasource = datasources.get(configName);
      if (!datasource) return { configName, tables: [] };
      const tables = collectRequestedTables(
        request.mappedFields[configName],
        filters && Object.hasOwn(filters, configName) ? filters[configName] : undefined,
        names.defaultSchema(datasource),
        names.canonicalName(datasource),
      );
      return { configName, datasource, tables };
    });
}

/**
 * The step an extraction's planning and the validate-schema endpoint share: discover each
 * datasource found (at most `concurrency` at once, only the namespaces the request names) and
 * check every table, field and filter field, reporting every offender rather than the first.
 * Never rejects: a failed discovery is that datasource's outcome, so that the others finish and
 * whatever they opened can be closed.
 */
export function matchRequested(
  requested: readonly RequestedDatasource[],
  concurrency: number,
  discover: DiscoverSchemas,
): Promise<DatasourceMatch[]> {
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
