import type { CursorKind } from '../../incremental/cursor-range.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { engineTypeReader } from '../shared/type-table.js';

/**
 * How values of a column are read and rendered (docs/value-mapping.md, "MySQL and MariaDB"). Chosen
 * once, at discovery, from `DATA_TYPE` / `COLUMN_TYPE`, so the per-row work is a table lookup.
 *
 * - `boolean`: `tinyint(1)` as BOOLEAN declares it (signed, width 1). Non-zero is true, as in
 *   MySQL's own `IS TRUE`; unsigned or wider tinyints stay integers.
 * - `float` / `double`: projected as text (see mysql-sql.ts) so no client-side float parsing
 *   can change a digit.
 * - `json`: MySQL's JSON type; `json-checked`: MariaDB's JSON alias, a text column guarded by
 *   `CHECK (json_valid(col))`, whose values are validated before being embedded.
 * - `bit-boolean`: BIT(1); `bit`: wider BIT as an unsigned integer.
 * - `spatial`: projected as WKT text.
 */
export type MySqlValueKind =
  | 'integer'
  | 'boolean'
  | 'decimal'
  | 'float'
  | 'double'
  | 'date'
  | 'datetime'
  | 'timestamp'
  | 'time'
  | 'bit-boolean'
  | 'bit'
  | 'json'
  | 'json-checked'
  | 'binary'
  | 'text'
  | 'spatial'
  | 'other';

/**
 * `ColumnInfo.engineType` for MySQL/MariaDB. Plain JSON data on purpose: a schema snapshot may be
 * cached outside the process (Redis), so it must survive a JSON round-trip.
 */
export interface MySqlColumnType {
  /** `information_schema.COLUMNS.DATA_TYPE`, lower-case (`bigint`, `datetime`, `longtext`). */
  readonly dataType: string;
  readonly unsigned: boolean;
  readonly kind: MySqlValueKind;
  /**
   * SQL type a bound filter value is CAST to, so it compares as the column's type (dates as
   * dates, decimals exactly rather than as doubles); absent when no cast is needed.
   */
  readonly castType?: string;
}

const INTEGER_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'year']);
const BINARY_TYPES = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);
const TEXT_TYPES = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'enum', 'set', 'uuid', 'inet4', 'inet6']);
const SPATIAL_TYPES = new Set([
  'geometry',
  'point',
  'linestring',
  'polygon',
  'multipoint',
  'multilinestring',
  'multipolygon',
  'geometrycollection',
  'geomcollection',
]);

/** Text types that can carry MariaDB's JSON alias (a json_valid check on a text column). */
export const JSON_CAPABLE_TYPES = new Set(['tinytext', 'text', 'mediumtext', 'longtext', 'varchar', 'char']);

/** Largest DECIMAL both servers accept; the scale is chosen so the column's integer digits fit. */
const MAX_DECIMAL_PRECISION = 65;
const MAX_CAST_SCALE = 30;

function decimalCast(precision: number | null, scale: number | null): string {
  const integerDigits = precision === null ? 0 : Math.max(0, precision - (scale ?? 0));
  const castScale = Math.max(0, Math.min(MAX_CAST_SCALE, MAX_DECIMAL_PRECISION - integerDigits));
  return `DECIMAL(${MAX_DECIMAL_PRECISION},${castScale})`;
}

function kindOf(dataType: string, columnType: string, isJsonChecked: boolean): MySqlValueKind {
  if (dataType === 'tinyint' && columnType === 'tinyint(1)') return 'boolean';
  if (INTEGER_TYPES.has(dataType)) return 'integer';
  if (dataType === 'decimal' || dataType === 'numeric') return 'decimal';
  if (dataType === 'float') return 'float';
  if (dataType === 'double' || dataType === 'real') return 'double';
  if (dataType === 'date' || dataType === 'datetime' || dataType === 'timestamp' || dataType === 'time') return dataType;
  if (dataType === 'bit') return columnType === 'bit(1)' ? 'bit-boolean' : 'bit';
  if (dataType === 'json') return 'json';
  if (isJsonChecked && JSON_CAPABLE_TYPES.has(dataType)) return 'json-checked';
  if (BINARY_TYPES.has(dataType)) return 'binary';
  if (TEXT_TYPES.has(dataType)) return 'text';
  if (SPATIAL_TYPES.has(dataType)) return 'spatial';
  return 'other';
}

function castFor(kind: MySqlValueKind, precision: number | null, scale: number | null): string | undefined {
  switch (kind) {
    case 'integer':
    case 'boolean':
      // Exact comparison: a string bound against an integer column would otherwise compare as a
      // double, so '9007199254740993' would match 9007199254740992.
      return decimalCast(20, 0);
    case 'decimal':
      return decimalCast(precision, scale);
    case 'date':
      return 'DATE';
    case 'datetime':
    case 'timestamp':
      return 'DATETIME(6)';
    case 'time':
      return 'TIME(6)';
    default:
      return undefined;
  }
}

export interface ColumnFacts {
  readonly dataType: string;
  readonly columnType: string;
  readonly numericPrecision: number | null;
  readonly numericScale: number | null;
  /** A `CHECK (json_valid(col))` constraint guards the column (MariaDB's JSON alias). */
  readonly jsonChecked: boolean;
}

/** The engine type of one column from its catalog facts. */
export function describeColumnType(facts: ColumnFacts): MySqlColumnType {
  const dataType = facts.dataType.toLowerCase();
  const columnType = facts.columnType.toLowerCase();
  const kind = kindOf(dataType, columnType, facts.jsonChecked);
  const castType = castFor(kind, facts.numericPrecision, facts.numericScale);
  return { dataType, unsigned: /\bunsigned\b/.test(columnType), kind, ...(castType === undefined ? {} : { castType }) };
}

/** The connector's type info of a column, or null when the snapshot carries none we understand. */
export const mysqlColumnType = engineTypeReader<MySqlColumnType>({ kind: 'string', dataType: 'string' });

/** Kind of a column, `other` (rendered by the value's own shape) when unknown. */
export const kindOfColumn = (column: ColumnInfo): MySqlValueKind => mysqlColumnType(column)?.kind ?? 'other';

/** Integer types a range can follow; YEAR (also an integer kind) is excluded below. */
const CURSOR_INTEGER_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint']);

/**
 * The cursor kind of a column (docs/incremental.md), from what discovery chose for its values, so a
 * mark always reads as the rows render the column. Refused (null): `TINYINT(1)`, rendered as a
 * boolean (a mark would have to be `true`); YEAR, a calendar value none of the kinds describes
 * (as an integer it could take no lag); FLOAT and DOUBLE, whose values are not exact; BIT; TIME,
 * a duration or time of day rather than a point in time; text, ENUM and SET, ordered by collation
 * or by their list rather than by what they show; JSON, binary and spatial columns.
 * DATETIME has no zone (`timestamp`); TIMESTAMP is an instant, rendered in UTC with `Z` (`timestamptz`).
 */
export function mySqlCursorKind(column: ColumnInfo): CursorKind | null {
  const type = mysqlColumnType(column);
  switch (type?.kind) {
    case 'integer':
      return CURSOR_INTEGER_TYPES.has(type.dataType) ? 'integer' : null;
    case 'decimal':
      return 'decimal';
    case 'date':
      return 'date';
    case 'datetime':
      return 'timestamp';
    case 'timestamp':
      return 'timestamptz';
    default:
      return null;
  }
}
