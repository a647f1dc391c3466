import type { ColumnInfo, SchemaSnapshot, TableInfo } from '../shared/engine-connector.js';
import { describeColumnType } from './mysql-types.js';

/**
 * MySQL's namespace is the connected database: discovery ignores any schema list and reads
 * `DATABASE()` only (no cross-database reads, as the original: docs/compatibility.md#discovery), keyed by bare table name. Three
 * catalog queries for the whole database, never one per table. information_schema lists only what
 * the login has privileges on, i.e. what can be extracted.
 */

/** Tables, views (MariaDB: also system-versioned tables) and their columns in ordinal order. */
export const COLUMNS_SQL = `
SELECT c.TABLE_SCHEMA, c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.DATA_TYPE, c.NUMERIC_PRECISION, c.NUMERIC_SCALE
FROM information_schema.TABLES t
JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME
WHERE t.TABLE_SCHEMA = DATABASE()
  AND t.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
  AND t.TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`;

/** Primary-key columns in key order; a MySQL primary key is always named PRIMARY. */
export const PRIMARY_KEYS_SQL = `
SELECT k.TABLE_NAME, k.COLUMN_NAME
FROM information_schema.KEY_COLUMN_USAGE k
WHERE k.TABLE_SCHEMA = DATABASE() AND k.CONSTRAINT_NAME = 'PRIMARY'
ORDER BY k.TABLE_NAME, k.ORDINAL_POSITION`;

/**
 * MariaDB only (MySQL has a real JSON type, and no TABLE_NAME in this view): the checks that make
 * a text column MariaDB's JSON alias. `JSON` columns get `CHECK (json_valid(`col`))`.
 */
export const JSON_CHECKS_SQL = `
SELECT cc.TABLE_NAME, cc.CHECK_CLAUSE
FROM information_schema.CHECK_CONSTRAINTS cc
WHERE cc.CONSTRAINT_SCHEMA = DATABASE() AND cc.CHECK_CLAUSE LIKE 'json\\_valid(%'`;

/** A catalog row as mysql2 returns it (arrays; numbers may come as digit strings). */
export type CatalogRow = readonly unknown[];

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return value === null || value === undefined ? '' : String(value);
}

function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(text(value));
  return Number.isFinite(n) ? n : null;
}

/** `json_valid(`a``b`)` → `a`b`; anything more complex is not a JSON column marker. */
const JSON_CHECK = /^json_valid\(`((?:[^`]|``)+)`\)$/i;

export function jsonCheckedColumn(clause: string): string | null {
  const m = JSON_CHECK.exec(clause.trim());
  return m === null ? null : m[1].replaceAll('``', '`');
}

const columnKey = (table: string, column: string): string => `${table}\u0000${column}`;

interface TableBuilder {
  readonly schema: string;
  readonly name: string;
  readonly columns: ColumnInfo[];
  readonly primaryKey: string[];
}

/** Groups the ordered catalog rows into tables keyed by bare table name. */
export function toSnapshot(
  columnRows: readonly CatalogRow[],
  keyRows: readonly CatalogRow[],
  jsonCheckRows: readonly CatalogRow[] = [],
): SchemaSnapshot {
  const jsonColumns = new Set<string>();
  for (const [table, clause] of jsonCheckRows) {
    const column = jsonCheckedColumn(text(clause));
    if (column !== null) jsonColumns.add(columnKey(text(table), column));
  }
  // Grouped by exact name: the catalog collation is case-insensitive, `Foo` and `foo` may
  // both exist (lower_case_table_names=0) and their rows may interleave.
  const builders = new Map<string, TableBuilder>();
  for (const row of columnRows) {
    const [schema, tableName, columnName, columnType, dataType, precision, scale] = row;
    const name = text(tableName);
    let table = builders.get(name);
    if (table === undefined) {
      table = { schema: text(schema), name, columns: [], primaryKey: [] };
      builders.set(name, table);
    }
    const column = text(columnName);
    const engineType = describeColumnType({
      dataType: text(dataType),
      columnType: text(columnType),
      numericPrecision: numberOrNull(precision),
      numericScale: numberOrNull(scale),
      jsonChecked: jsonColumns.has(columnKey(name, column)),
    });
    table.columns.push({ name: column, dataType: text(columnType), engineType });
  }
  for (const [tableName, columnName] of keyRows) builders.get(text(tableName))?.primaryKey.push(text(columnName));

  const tables = new Map<string, TableInfo>();
  for (const [name, t] of builders) {
    tables.set(name, { schema: t.schema, name, key: name, columns: t.columns, primaryKey: t.primaryKey });
  }
  return { tables };
}
