import type { ColumnInfo, RowBatch } from '../shared/engine-connector.js';
import { encodeCheckedJson, float32Text } from '../mysql/mysql-value-encoders.js';
import { encodeString } from '../postgres/postgres-value-encoders.js';
import { createRowBatchRenderer } from '../shared/row-batch-renderer.js';
import { kindOfColumn, type SqlServerValueKind } from './sqlserver-types.js';

/**
 * A value as tedious hands it over for this connector's SELECT (arrays of values, one per
 * projected column, `lowerCaseGuids` on):
 * - boolean: bit;
 * - number: tinyint, smallint, int, float, real (the double of the stored single);
 * - string: bigint digits, the server-made text of decimal/money/date/time types
 *   (sqlserver-expressions.ts), uniqueidentifier, every character type, xml, CLR text;
 * - Buffer: binary, varbinary, image, rowversion.
 * A Date only appears if a type slipped past the text conversions; it is rendered as ISO text.
 */
export type RawValue = string | number | boolean | Buffer | Date | null | undefined;
export type RawRow = readonly RawValue[];

/** Turns one non-NULL value into JSON text (SPEC §6). */
export type ValueEncoder = (value: string | number | boolean | Buffer | Date) => string;

const quoted = (text: string): string => '"' + text + '"';

/** JSON has no NaN or infinities (SQL Server stores none; this is only a guard). */
const numberText = (n: number): string => (Number.isFinite(n) ? String(n) : quoted(String(n)));

/** Any value by its own shape: the fallback when a value is not what its column type promised. */
export const encodeAny: ValueEncoder = (v) => {
  if (typeof v === 'string') return encodeString(v);
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Buffer.isBuffer(v)) return quoted(v.toString('base64'));
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'null' : quoted(v.toISOString());
  return encodeString(String(v));
};

export const encodeBoolean: ValueEncoder = (v) =>
  typeof v === 'boolean' ? (v ? 'true' : 'false') : typeof v === 'number' ? (v === 0 ? 'false' : 'true') : encodeAny(v);

/** tinyint/smallint/int as numbers; bigint as the driver's exact digit string, unquoted. */
export const encodeInteger: ValueEncoder = (v) =>
  typeof v === 'number' ? String(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? v : encodeAny(v);

/** decimal/numeric/money: the server's exact text as a string; it needs no escaping. */
export const encodeDecimal: ValueEncoder = (v) => (typeof v === 'string' ? quoted(v) : encodeAny(v));

/** float: the double itself; String() is its shortest round-trip text. */
export const encodeFloat: ValueEncoder = (v) => (typeof v === 'number' ? numberText(v) : encodeAny(v));

/** real: tedious widens the single to a double (0.1 → 0.10000000149011612); its shortest single text. */
export const encodeReal: ValueEncoder = (v) => (typeof v === 'number' ? float32Text(v) : encodeAny(v));

/** date (`yyyy-mm-dd`) and time (`hh:mm:ss[.fffffff]`): the server text as is. */
export const encodeTemporalText: ValueEncoder = (v) => (typeof v === 'string' ? quoted(v) : encodeAny(v));

/** datetime2/datetime/smalldatetime: `yyyy-mm-dd hh:mm:ss[.f…]` → ISO `T`, no offset. */
export const encodeDateTime: ValueEncoder = (v) => {
  if (typeof v !== 'string') return encodeAny(v);
  return quoted(v.length > 10 && v.charCodeAt(10) === 32 ? v.slice(0, 10) + 'T' + v.slice(11) : v);
};

/** datetimeoffset: `yyyy-mm-dd hh:mm:ss[.f…] +hh:mm` → `yyyy-mm-ddThh:mm:ss[.f…]+hh:mm`, the stored offset kept. */
export const encodeDateTimeOffset: ValueEncoder = (v) => {
  if (typeof v !== 'string') return encodeAny(v);
  const iso = v.length > 10 && v.charCodeAt(10) === 32 ? v.slice(0, 10) + 'T' + v.slice(11) : v;
  return quoted(iso.replace(/ (?=[+-]\d{2}:\d{2}$)/, ''));
};

/** binary/varbinary/image/rowversion as base64. */
export const encodeBinary: ValueEncoder = (v) => (Buffer.isBuffer(v) ? quoted(v.toString('base64')) : encodeAny(v));

/** Character types, xml, uniqueidentifier, CLR and sql_variant text: JSON strings. */
export const encodeText: ValueEncoder = (v) => (typeof v === 'string' ? encodeString(v) : encodeAny(v));

/**
 * SQL Server 2025 `json`: valid by construction, but embedded only after a parse check, since
 * one malformed document would corrupt the whole result (it is then kept as a string).
 */
export const encodeJson: ValueEncoder = (v) => (typeof v === 'string' ? encodeCheckedJson(v) : encodeAny(v));

const ENCODERS: Readonly<Record<SqlServerValueKind, ValueEncoder>> = {
  boolean: encodeBoolean,
  integer: encodeInteger,
  bigint: encodeInteger,
  decimal: encodeDecimal,
  money: encodeDecimal,
  float: encodeFloat,
  real: encodeReal,
  date: encodeTemporalText,
  time: encodeTemporalText,
  datetime2: encodeDateTime,
  datetime: encodeDateTime,
  smalldatetime: encodeDateTime,
  datetimeoffset: encodeDateTimeOffset,
  uuid: encodeText,
  binary: encodeBinary,
  text: encodeText,
  'long-text': encodeText,
  xml: encodeText,
  json: encodeJson,
  clr: encodeText,
  variant: encodeText,
  other: encodeAny,
};

export function encoderFor(kind: SqlServerValueKind): ValueEncoder {
  return ENCODERS[kind] ?? encodeAny;
}

/** Renders rows as JSON objects joined with commas, in ~48 KiB chunks (see row-batch-renderer). */
export function createBatchRenderer(columns: readonly ColumnInfo[]): (rows: readonly RawRow[]) => RowBatch[] {
  return createRowBatchRenderer(
    columns.map((c) => c.name),
    columns.map((c) => encoderFor(kindOfColumn(c))),
  );
}
