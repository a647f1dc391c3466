import { WILDCARD, type FilterCondition } from '../../request/data-request.js';
import type { SchemaSnapshot } from '../shared/engine-connector.js';

/**
 * Oracle folds unquoted names to upper case, and its catalog stores them so: a request for
 * `accounts.balance` means table ACCOUNTS, column BALANCE (docs/api.md, "Tables and result keys":
 * Oracle matching is case-insensitive by upper-folding both sides, and result keys and column keys
 * are upper-case).
 *
 * The planner applies `normalizeOracleRequest` to an Oracle datasource's part of the request
 * before collecting tables (so `accounts`, `ACCOUNTS` and `Fetcher.Accounts` become one table
 * `ACCOUNTS`, and owners to discover are upper-case), and once more with the discovered snapshot
 * before matching. With the snapshot, a name that exists exactly as written is kept as written:
 * objects created with quoted mixed-case names (`"Orders"`) stay reachable, while everything else
 * is upper-cased.
 */

export type OracleMappedTables = Record<string, string[]>;
export type OracleTableFilters = Record<string, Record<string, FilterCondition>>;

/** Splits `owner.table` at the first dot; a leading or trailing dot is part of the name. */
function split(name: string): { owner: string | null; table: string } {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return { owner: null, table: name };
  return { owner: name.slice(0, dot), table: name.slice(dot + 1) };
}

/** Exact if the snapshot has it, else upper-cased. */
const fold = (name: string, exists: (candidate: string) => boolean): string => (exists(name) ? name : name.toUpperCase());

/**
 * The canonical spelling of a requested table: the owner upper-cased (a login's owners are
 * upper-case unless created quoted, which the snapshot check covers too), the table upper-cased
 * unless the snapshot holds it exactly as written.
 */
export function normalizeOracleTableName(requested: string, snapshot?: SchemaSnapshot, defaultSchema?: string): string {
  const { owner, table } = split(requested);
  const has = (key: string): boolean => snapshot?.tables.has(key) ?? false;
  const keyOf = (o: string | null, t: string): string => (o === null || o === defaultSchema ? t : `${o}.${t}`);
  const canonicalOwner = owner === null ? null : fold(owner, (o) => [...(snapshot?.tables.values() ?? [])].some((t) => t.schema === o));
  const canonicalTable = fold(table, (t) => has(keyOf(canonicalOwner, t)));
  return canonicalOwner === null ? canonicalTable : `${canonicalOwner}.${canonicalTable}`;
}

/** The canonical spelling of a field of `table` (a canonical table name): `*` stays `*`. */
export function normalizeOracleField(field: string, table: string, snapshot?: SchemaSnapshot, defaultSchema?: string): string {
  if (field === WILDCARD) return field;
  const { owner, table: name } = split(table);
  const key = owner === null || owner === defaultSchema ? name : table;
  const columns = snapshot?.tables.get(key)?.columns;
  return fold(field, (f) => columns?.some((c) => c.name === f) ?? false);
}

/**
 * One Oracle datasource's `mappedFields` and `filters`, canonicalised. Tables that become the same
 * name are merged (fields in first-seen order, duplicates dropped; a wildcard wins), as are their
 * filters (the first condition given for a field wins, as in the original service: docs/compatibility.md#discovery).
 */
export function normalizeOracleRequest(
  mapped: Readonly<Record<string, readonly string[]>>,
  filters?: Readonly<Record<string, Readonly<Record<string, FilterCondition>>>>,
  snapshot?: SchemaSnapshot,
  defaultSchema?: string,
): { mapped: OracleMappedTables; filters: OracleTableFilters } {
  const outMapped: OracleMappedTables = {};
  for (const [requested, fields] of Object.entries(mapped)) {
    const table = normalizeOracleTableName(requested, snapshot, defaultSchema);
    const merged = (outMapped[table] ??= []);
    for (const field of fields.map((f) => normalizeOracleField(f, table, snapshot, defaultSchema))) {
      if (merged.includes(WILDCARD)) break;
      if (field === WILDCARD) merged.splice(0, merged.length, WILDCARD);
      else if (!merged.includes(field)) merged.push(field);
    }
  }
  const outFilters: OracleTableFilters = {};
  for (const [requested, conditions] of Object.entries(filters ?? {})) {
    const table = normalizeOracleTableName(requested, snapshot, defaultSchema);
    const merged = (outFilters[table] ??= {});
    for (const [field, condition] of Object.entries(conditions)) {
      const name = normalizeOracleField(field, table, snapshot, defaultSchema);
      if (!(name in merged)) merged[name] = condition;
    }
  }
  return { mapped: outMapped, filters: outFilters };
}
