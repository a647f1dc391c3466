import type { ColumnInfo } from '../shared/engine-connector.js';
import { engineTypeReader } from '../shared/type-table.js';

/**
 * How values of a column are read and rendered (docs/value-mapping.md, "SQL Server"). Chosen once,
 * at discovery, from the column's system type (alias types resolved to their base type), so the
 * per-row work is a table lookup. Kinds whose driver value would lose something are converted to
 * text by the SELECT itself (sqlserver-sql.ts).
 */
export type SqlServerValueKind =
  | 'boolean'
  | 'integer'
  | 'bigint'
  | 'decimal'
  | 'money'
  | 'float'
  | 'real'
  | 'date'
  | 'datetime2'
  | 'datetime'
  | 'smalldatetime'
  | 'datetimeoffset'
  | 'time'
  | 'uuid'
  | 'binary'
  | 'text'
  | 'long-text'
  | 'xml'
  | 'json'
  | 'clr'
  | 'variant'
  | 'other';

/**
 * `ColumnInfo.engineType` for SQL Server. Plain JSON data on purpose: a schema snapshot may be
 * cached outside the process (Redis), so it must survive a JSON round-trip.
 */
export interface SqlServerColumnType {
  /** System type name, lower-case (`decimal`, `nvarchar`, `datetime2`); CLR types by their own name. */
  readonly typeName: string;
  readonly kind: SqlServerValueKind;
  /** `sys.columns.max_length`: bytes (UTF-16 types count 2 per character), -1 for `(max)`. */
  readonly maxLength: number;
  readonly precision: number;
  readonly scale: number;
}

const KIND_BY_TYPE: Readonly<Record<string, SqlServerValueKind>> = {
  bit: 'boolean',
  tinyint: 'integer',
  smallint: 'integer',
  int: 'integer',
  bigint: 'bigint',
  decimal: 'decimal',
  numeric: 'decimal',
  money: 'money',
  smallmoney: 'money',
  float: 'float',
  real: 'real',
  date: 'date',
  datetime2: 'datetime2',
  datetime: 'datetime',
  smalldatetime: 'smalldatetime',
  datetimeoffset: 'datetimeoffset',
  time: 'time',
  uniqueidentifier: 'uuid',
  binary: 'binary',
  varbinary: 'binary',
  image: 'binary',
  // rowversion's catalog name
  timestamp: 'binary',
  char: 'text',
  varchar: 'text',
  nchar: 'text',
  nvarchar: 'text',
  text: 'long-text',
  ntext: 'long-text',
  xml: 'xml',
  json: 'json',
  sql_variant: 'variant',
};

/** What discovery reads about one column from sys.columns / sys.types. */
export interface ColumnFacts {
  /** The declared type: a system type, an alias type (`dbo.Phone`) or a CLR type. */
  readonly typeName: string;
  /** The system type behind an alias type; the type itself otherwise. */
  readonly baseTypeName: string;
  /** CLR type (geography, geometry, hierarchyid, user assemblies). */
  readonly isAssemblyType: boolean;
  readonly maxLength: number;
  readonly precision: number;
  readonly scale: number;
}

export function describeColumnType(facts: ColumnFacts): SqlServerColumnType {
  const typeName = facts.baseTypeName.toLowerCase();
  const kind = facts.isAssemblyType ? 'clr' : (KIND_BY_TYPE[typeName] ?? 'other');
  return { typeName, kind, maxLength: facts.maxLength, precision: facts.precision, scale: facts.scale };
}

const LENGTH_TYPES = new Set(['char', 'varchar', 'binary', 'varbinary']);
const UNICODE_LENGTH_TYPES = new Set(['nchar', 'nvarchar']);
const FRACTION_TYPES = new Set(['datetime2', 'datetimeoffset', 'time']);

/** The type as people write it: `decimal(12,2)`, `nvarchar(max)`, `datetime2(3)`, or an alias type's name. */
export function formatDataType(facts: ColumnFacts): string {
  if (facts.isAssemblyType || facts.typeName.toLowerCase() !== facts.baseTypeName.toLowerCase()) return facts.typeName;
  const name = facts.baseTypeName.toLowerCase();
  const length = (units: number): string => (facts.maxLength === -1 ? 'max' : String(units));
  if (LENGTH_TYPES.has(name)) return `${name}(${length(facts.maxLength)})`;
  if (UNICODE_LENGTH_TYPES.has(name)) return `${name}(${length(facts.maxLength / 2)})`;
  if (name === 'decimal' || name === 'numeric') return `${name}(${facts.precision},${facts.scale})`;
  if (FRACTION_TYPES.has(name)) return `${name}(${facts.scale})`;
  return name;
}

/** The connector's type info of a column, or null when the snapshot carries none we understand. */
export const sqlServerColumnType = engineTypeReader<SqlServerColumnType>({ kind: 'string', typeName: 'string' });

/** Kind of a column, `other` (read as text, rendered by the value's own shape) when unknown. */
export const kindOfColumn = (column: ColumnInfo): SqlServerValueKind => sqlServerColumnType(column)?.kind ?? 'other';
