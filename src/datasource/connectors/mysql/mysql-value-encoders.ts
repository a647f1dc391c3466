import type { ColumnInfo, RowBatch } from '../shared/engine-connector.js';
import { encodeJson, encodeString } from '../postgres/postgres-value-encoders.js';
import { createRowBatchRenderer } from '../shared/row-batch-renderer.js';
import { kindOfColumn, type MySqlValueKind } from './mysql-types.js';

/**
 * A value as mysql2 hands it over with this connector's options (`supportBigNumbers`,
 * `bigNumberStrings`, `dateStrings`, `jsonStrings`, `decimalNumbers: false`, rows as arrays):
 * - number: TINYINT…INT (signed and unsigned), MEDIUMINT, YEAR;
 * - string: BIGINT digits, DECIMAL text, DATE/DATETIME/TIMESTAMP/TIME text, JSON text, every
 *   character type, and the text projections of FLOAT/DOUBLE/spatial columns (mysql-sql.ts);
 * - Buffer: BIT, BINARY/VARBINARY/BLOB (binary character set).
 */
export type RawValue = string | number | Buffer | null | undefined;
export type RawRow = readonly RawValue[];

/** Turns one non-NULL value into JSON text (SPEC §6). */
export type ValueEncoder = (value: string | number | Buffer) => string;

const quoted = (text: string): string => '"' + text + '"';

/** JSON has no NaN or infinities: those become strings. */
const numberText = (n: number): string => (Number.isFinite(n) ? String(n) : quoted(String(n)));

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** Any value by its own shape: the fallback when a value is not what its column type promised. */
export const encodeAny: ValueEncoder = (v) => {
  if (typeof v === 'string') return encodeString(v);
  if (typeof v === 'number') return numberText(v);
  if (Buffer.isBuffer(v)) return quoted(v.toString('base64'));
  return encodeString(String(v));
};

/** Integers: JS numbers up to 32 bits, BIGINT (signed and UNSIGNED) as the server's digits. */
export const encodeInteger: ValueEncoder = (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : encodeAny(v));

/** TINYINT(1): non-zero is true, as MySQL's own `IS TRUE` reads it. */
export const encodeBoolean: ValueEncoder = (v) => {
  if (typeof v === 'number') return v === 0 ? 'false' : 'true';
  if (typeof v === 'string') return Number(v) === 0 ? 'false' : 'true';
  return encodeAny(v);
};

/** DECIMAL/NUMERIC: the exact server text as a string; it needs no escaping. */
export const encodeDecimal: ValueEncoder = (v) =>
  typeof v === 'string' ? quoted(v) : typeof v === 'number' ? quoted(String(v)) : encodeAny(v);

/**
 * DOUBLE, read as the server's text: already the shortest round-trip form (`0.1`, `1e300`,
 * `9.007199254740992e15`) and valid JSON number syntax.
 */
export const encodeDouble: ValueEncoder = (v) => {
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'string') return v.length > 0 && isDigit(v.charCodeAt(v.length - 1)) ? v : encodeString(v);
  return encodeAny(v);
};

/** The shortest decimal text that reads back as the same single-precision value. */
export function float32Text(value: number): string {
  if (!Number.isFinite(value)) return quoted(String(value));
  const f = Math.fround(value);
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) return String(candidate);
  }
  return String(Number(f.toPrecision(9)));
}

/** FLOAT, read as the exact double of the stored single (`0.10000000149011612`) → `0.1`. */
export const encodeFloat: ValueEncoder = (v) =>
  typeof v === 'string' ? float32Text(Number(v)) : typeof v === 'number' ? float32Text(v) : encodeAny(v);

/**
 * Zero dates (`0000-00-00`, allowed unless NO_ZERO_DATE) mean "no date" and have no ISO form:
 * they become null. Partly-zero dates (`2024-00-15`) keep the server text.
 */
const isZeroDate = (text: string): boolean => text.startsWith('0000-00-00');

/** DATE: `YYYY-MM-DD` already. */
export const encodeDate: ValueEncoder = (v) => (typeof v === 'string' ? (isZeroDate(v) ? 'null' : quoted(v)) : encodeAny(v));

/** `YYYY-MM-DD HH:MM:SS[.ffffff]` → ISO `T` separator, fraction at the column's precision. */
function isoDateTime(text: string): string {
  return text.length > 10 && text.charCodeAt(10) === 32 ? text.slice(0, 10) + 'T' + text.slice(11) : text;
}

/** DATETIME: no zone, so no offset. */
export const encodeDateTime: ValueEncoder = (v) =>
  typeof v === 'string' ? (isZeroDate(v) ? 'null' : quoted(isoDateTime(v))) : encodeAny(v);

/** TIMESTAMP: an instant, printed in the session time zone, which is UTC. */
export const encodeTimestamp: ValueEncoder = (v) =>
  typeof v === 'string' ? (isZeroDate(v) ? 'null' : quoted(isoDateTime(v) + 'Z')) : encodeAny(v);

/** TIME: the server text, which may be negative or above 24 h (`-838:59:59.000000`). */
export const encodeTime: ValueEncoder = (v) => (typeof v === 'string' ? quoted(v) : encodeAny(v));

/** BIT(1) as a boolean. */
export const encodeBitBoolean: ValueEncoder = (v) => {
  if (Buffer.isBuffer(v)) return v.some((byte) => byte !== 0) ? 'true' : 'false';
  if (typeof v === 'number') return v === 0 ? 'false' : 'true';
  return encodeAny(v);
};

/** BIT(n>1) as an unsigned integer with every digit (BIT(64) exceeds 2^53). */
export const encodeBit: ValueEncoder = (v) => {
  if (!Buffer.isBuffer(v)) return typeof v === 'number' ? String(v) : encodeAny(v);
  if (v.length === 0) return '0';
  if (v.length <= 6) return String(v.readUIntBE(0, v.length));
  return BigInt('0x' + v.toString('hex')).toString();
};

/** MySQL's JSON type: valid by construction; compacted without re-parsing numbers. */
export const encodeNativeJson: ValueEncoder = (v) => (typeof v === 'string' ? encodeJson(v) : encodeAny(v));

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * MariaDB's JSON alias: the check constraint can be bypassed (`check_constraint_checks=0`), and
 * one invalid document embedded as is would corrupt the whole result, so values are validated
 * and an invalid one is kept as a string.
 */
export const encodeCheckedJson: ValueEncoder = (v) => {
  if (typeof v !== 'string') return encodeAny(v);
  return isValidJson(v) ? encodeJson(v) : encodeString(v);
};

/** BINARY/VARBINARY/BLOB as base64. */
export const encodeBinary: ValueEncoder = (v) =>
  Buffer.isBuffer(v)
    ? quoted(v.toString('base64'))
    : typeof v === 'string'
      ? quoted(Buffer.from(v, 'utf8').toString('base64'))
      : encodeAny(v);

/** Character types, ENUM, SET, UUID, INET, WKT: JSON strings (the connection is utf8mb4). */
export const encodeText: ValueEncoder = (v) => (typeof v === 'string' ? encodeString(v) : encodeAny(v));

const ENCODERS: Readonly<Record<MySqlValueKind, ValueEncoder>> = {
  integer: encodeInteger,
  boolean: encodeBoolean,
  decimal: encodeDecimal,
  float: encodeFloat,
  double: encodeDouble,
  date: encodeDate,
  datetime: encodeDateTime,
  timestamp: encodeTimestamp,
  time: encodeTime,
  'bit-boolean': encodeBitBoolean,
  bit: encodeBit,
  json: encodeNativeJson,
  'json-checked': encodeCheckedJson,
  binary: encodeBinary,
  text: encodeText,
  spatial: encodeText,
  other: encodeAny,
};

export function encoderFor(kind: MySqlValueKind): ValueEncoder {
  return ENCODERS[kind] ?? encodeAny;
}

/**
 * Kinds for one result: the discovered ones, except that a text column the server labels `json`
 * (MariaDB's extended metadata, which also flags JSON columns seen through a view, where the
 * catalog only says `longtext`) is embedded as checked JSON.
 */
export function kindsForResult(columns: readonly ColumnInfo[], fields: readonly { readonly extendedFormat?: string }[]): MySqlValueKind[] {
  return columns.map((column, i) => {
    const kind = kindOfColumn(column);
    return fields[i]?.extendedFormat === 'json' && (kind === 'text' || kind === 'other') ? 'json-checked' : kind;
  });
}

/** Renders rows as JSON objects joined with commas, in ~48 KiB chunks (see row-batch-renderer). */
export function createBatchRenderer(
  columns: readonly ColumnInfo[],
  kinds: readonly MySqlValueKind[] = columns.map(kindOfColumn),
): (rows: readonly RawRow[]) => RowBatch[] {
  return createRowBatchRenderer(
    columns.map((c) => c.name),
    kinds.map(encoderFor),
  );
}
