import type { ColumnInfo } from '../shared/engine-connector.js';
import { engineTypeReader } from '../shared/type-table.js';

/**
 * How values of a column are read, rendered and filtered (docs/value-mapping.md, "Oracle"), chosen
 * once at discovery from ALL_TAB_COLUMNS, so the per-row work is a table lookup.
 *
 * - `integer`: NUMBER with scale ≤ 0 (NUMBER(p), INTEGER, NUMBER(p,-n)) → JSON integers, exact digits.
 * - `decimal`: NUMBER with a positive scale (padded to it: `10.50`) or without one (NUMBER, FLOAT)
 *   → exact decimal strings.
 * - `binary_float` / `binary_double`: IEEE floats → JSON numbers.
 * - `date`: DATE, which always carries a time of day → `YYYY-MM-DDTHH:MM:SS`.
 * - `timestamp` / `timestamp_tz` / `timestamp_ltz`: ISO-8601 at the column's fractional precision;
 *   with the stored offset (`Z` for +00:00) / in UTC with `Z`.
 * - `interval_ym` / `interval_ds`: ISO-8601 durations.
 * - `text` (VARCHAR2, NVARCHAR2), `char` (CHAR, NCHAR: blank-padded comparison), `long` (LONG),
 *   `clob` (CLOB, NCLOB): strings; `binary` (RAW), `long_raw`, `blob`: base64.
 * - `boolean` (23ai), `json` (21c+: embedded JSON), `vector` (23ai: JSON arrays), `rowid`, `xml`.
 * - `bfile`: a pointer to a server file; it has no value Fetcher can extract.
 * - `other`: object types and anything unknown, rendered from the driver value's own shape.
 */
export type OracleValueKind =
  | 'integer'
  | 'decimal'
  | 'binary_float'
  | 'binary_double'
  | 'date'
  | 'timestamp'
  | 'timestamp_tz'
  | 'timestamp_ltz'
  | 'interval_ym'
  | 'interval_ds'
  | 'text'
  | 'char'
  | 'long'
  | 'clob'
  | 'binary'
  | 'long_raw'
  | 'blob'
  | 'boolean'
  | 'json'
  | 'vector'
  | 'rowid'
  | 'xml'
  | 'bfile'
  | 'other';

/**
 * `ColumnInfo.engineType` for Oracle: the catalog facts and the kind derived from them. Plain JSON
 * data on purpose: a schema snapshot may be cached outside the process (Redis).
 */
export interface OracleColumnType {
  /** ALL_TAB_COLUMNS.DATA_TYPE (`NUMBER`, `TIMESTAMP(3) WITH TIME ZONE`, `VARCHAR2`). */
  readonly dataType: string;
  readonly precision: number | null;
  readonly scale: number | null;
  readonly charLength: number | null;
  readonly kind: OracleValueKind;
  /** NCHAR / NVARCHAR2 / NCLOB: the national character set form (matters for CHAR and LOB binds). */
  readonly national: boolean;
  /** Fractional-second digits rendered for timestamps (the column's precision, 0–9). */
  readonly fractionDigits?: number;
}

export interface OracleColumnFacts {
  readonly dataType: string;
  readonly precision: number | null;
  readonly scale: number | null;
  readonly charLength: number | null;
  /** Set for object types (`MDSYS`.`SDO_GEOMETRY`, `SYS`.`XMLTYPE`). */
  readonly typeOwner?: string | null;
}

const SIMPLE_KINDS: Readonly<Record<string, OracleValueKind>> = {
  FLOAT: 'decimal',
  BINARY_FLOAT: 'binary_float',
  BINARY_DOUBLE: 'binary_double',
  DATE: 'date',
  VARCHAR2: 'text',
  NVARCHAR2: 'text',
  VARCHAR: 'text',
  CHAR: 'char',
  NCHAR: 'char',
  LONG: 'long',
  CLOB: 'clob',
  NCLOB: 'clob',
  RAW: 'binary',
  'LONG RAW': 'long_raw',
  BLOB: 'blob',
  BOOLEAN: 'boolean',
  JSON: 'json',
  VECTOR: 'vector',
  ROWID: 'rowid',
  UROWID: 'rowid',
  XMLTYPE: 'xml',
  BFILE: 'bfile',
};

/** `TIMESTAMP(3) WITH TIME ZONE` → 3. */
function fractionDigitsOf(dataType: string, scale: number | null): number {
  const m = /^TIMESTAMP\((\d)\)/.exec(dataType);
  if (m !== null) return Number(m[1]);
  return scale !== null && scale >= 0 && scale <= 9 ? scale : 6;
}

function kindOf(facts: OracleColumnFacts, dataType: string): OracleValueKind {
  if (dataType === 'NUMBER') return facts.scale !== null && facts.scale <= 0 ? 'integer' : 'decimal';
  if (dataType.startsWith('TIMESTAMP')) {
    if (dataType.endsWith('WITH LOCAL TIME ZONE')) return 'timestamp_ltz';
    if (dataType.endsWith('WITH TIME ZONE')) return 'timestamp_tz';
    return 'timestamp';
  }
  if (dataType.startsWith('INTERVAL YEAR')) return 'interval_ym';
  if (dataType.startsWith('INTERVAL DAY')) return 'interval_ds';
  const simple = SIMPLE_KINDS[dataType];
  // A user type that happens to be called like a built-in (`"APP"."JSON"`) is not the built-in,
  // except XMLTYPE, which the catalog reports with owner SYS or PUBLIC.
  if (simple !== undefined && (!facts.typeOwner || dataType === 'XMLTYPE')) return simple;
  return 'other';
}

/** The engine type of one column from its catalog facts. */
export function describeColumnType(facts: OracleColumnFacts): OracleColumnType {
  const dataType = facts.dataType.trim().toUpperCase();
  const kind = kindOf(facts, dataType);
  const national = dataType === 'NCHAR' || dataType === 'NVARCHAR2' || dataType === 'NCLOB';
  const base = { dataType, precision: facts.precision, scale: facts.scale, charLength: facts.charLength, kind, national };
  if (kind === 'timestamp' || kind === 'timestamp_tz' || kind === 'timestamp_ltz') {
    return { ...base, fractionDigits: fractionDigitsOf(dataType, facts.scale) };
  }
  return base;
}

/** A type name for people: `NUMBER(12,2)`, `VARCHAR2(64)`, `TIMESTAMP(3)`. */
export function displayType(facts: OracleColumnFacts & { readonly dataLength?: number | null }): string {
  const dataType = facts.dataType.trim().toUpperCase();
  const { precision, scale, charLength } = facts;
  if (dataType === 'NUMBER') {
    if (precision === null) return scale === 0 ? 'INTEGER' : 'NUMBER';
    return scale === null || scale === 0 ? `NUMBER(${precision})` : `NUMBER(${precision},${scale})`;
  }
  if (dataType === 'FLOAT' && precision !== null) return `FLOAT(${precision})`;
  if (['VARCHAR2', 'NVARCHAR2', 'CHAR', 'NCHAR', 'VARCHAR'].includes(dataType) && charLength) return `${dataType}(${charLength})`;
  if (dataType === 'RAW' && facts.dataLength) return `RAW(${facts.dataLength})`;
  return facts.typeOwner && dataType !== 'XMLTYPE' ? `${facts.typeOwner}.${dataType}` : dataType;
}

/** The connector's type info of a column, or null when the snapshot carries none we understand. */
export const oracleColumnType = engineTypeReader<OracleColumnType>({ kind: 'string', dataType: 'string' });

/** Kind of a column, `other` (rendered by the value's own shape) when unknown. */
export const kindOfColumn = (column: ColumnInfo): OracleValueKind => oracleColumnType(column)?.kind ?? 'other';
