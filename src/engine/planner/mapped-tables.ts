import type { ErrorDetail } from '../errors/fetcher-error.js';
import { WILDCARD, type FilterCondition } from '../request/data-request.js';
import type { ColumnInfo, SchemaSnapshot, TableReadRequest } from '../connectors/shared/engine-connector.js';
import { parseTableReference } from './table-reference.js';

/** One table a request names, after `public.x` and `x` have been recognised as the same table. */
export interface RequestedTable {
  readonly schema: string | null;
  readonly name: string;
  readonly key: string;
  readonly fields: readonly string[];
  readonly filters: Readonly<Record<string, FilterCondition>>;
}

export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Groups the tables of one datasource by result key, merging field lists (a wildcard wins) and
 * attaching their filters. Sorted by key: the order they appear in the result.
 */
export function collectRequestedTables(
  mapped: Readonly<Record<string, readonly string[]>>,
  filters: Readonly<Record<string, Readonly<Record<string, FilterCondition>>>> | undefined,
  defaultSchema: string | null,
  canonical: (name: string) => string = (name) => name,
): RequestedTable[] {
  const tables = new Map<
    string,
    { schema: string | null; name: string; key: string; fields: string[]; filters: Record<string, FilterCondition> }
  >();
  const fold = (names: readonly string[]) => names.map((name) => (name === WILDCARD ? name : canonical(name)));
  for (const [requestedName, requestedFields] of Object.entries(mapped)) {
    const ref = parseTableReference(requestedName, defaultSchema, canonical);
    const fields = fold(requestedFields);
    const existing = tables.get(ref.key);
    if (!existing) {
      tables.set(ref.key, { schema: ref.schema, name: ref.name, key: ref.key, fields: [...fields], filters: {} });
    } else if (existing.fields.includes(WILDCARD) || fields.includes(WILDCARD)) {
      existing.fields = [WILDCARD];
    } else {
      existing.fields.push(...fields.filter((field) => !existing.fields.includes(field)));
    }
  }
  for (const [requestedName, conditions] of Object.entries(filters ?? {})) {
    const table = tables.get(parseTableReference(requestedName, defaultSchema, canonical).key);
    if (!table) continue;
    for (const [field, condition] of Object.entries(conditions)) table.filters[canonical(field)] = condition;
  }
  return [...tables.values()].sort((a, b) => compareKeys(a.key, b.key));
}

/** Distinct namespaces to discover for these tables (engines without schemas: none). */
export function schemasOf(tables: readonly RequestedTable[]): string[] {
  return [...new Set(tables.map((table) => table.schema).filter((schema): schema is string => schema !== null))];
}

/**
 * Checks every table, field and filter field against a discovered schema. Returns the read requests
 * of the tables that exist and every offender (all of them, not the first: docs/api.md,
 * "mappedFields").
 */
export function matchRequestedTables(
  datasource: string,
  requested: readonly RequestedTable[],
  snapshot: SchemaSnapshot,
): { tables: TableReadRequest[]; details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const tables: TableReadRequest[] = [];
  for (const table of requested) {
    const info = snapshot.tables.get(table.key);
    if (!info) {
      details.push({ type: 'table_not_found', datasource, table: table.key });
      continue;
    }
    const byName = new Map(info.columns.map((column) => [column.name, column]));
    const columns: ColumnInfo[] = [];
    if (table.fields.includes(WILDCARD)) {
      columns.push(...info.columns);
    } else {
      for (const field of table.fields) {
        const column = byName.get(field);
        if (column) columns.push(column);
        else details.push({ type: 'field_not_found', datasource, table: table.key, field });
      }
    }
    for (const field of Object.keys(table.filters)) {
      if (!byName.has(field))
        details.push({ type: 'invalid_filter', datasource, table: table.key, field, message: `no column '${field}' to filter on` });
    }
    const filters = Object.keys(table.filters).length > 0 ? table.filters : undefined;
    tables.push({ table: info, columns, filters });
  }
  return { tables, details };
}
