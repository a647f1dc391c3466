import type { ColumnInfo } from '../shared/engine-connector.js';
import { jsonOfCheckedDocument, jsonOfPlainText, jsonOfValue } from '../shared/json-of-value.js';
import { base64String, compactJson, float32Text, isoDateTime, jsonNumber, jsonString, quoted } from '../shared/json-text.js';
import { kindBatchRenderer, kindLookup } from '../shared/type-table.js';
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

/** Turns one non-NULL value into JSON text (docs/value-mapping.md, "MySQL and MariaDB"). */
export type ValueEncoder = (value: string | number | Buffer) => string;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** Any value by its own shape: the fallback when a value is not what its column type promised. */
export const encodeAny: ValueEncoder = jsonOfValue;

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
  if (typeof v === 'number') return jsonNumber(v);
  if (typeof v === 'string') return v.length > 0 && isDigit(v.charCodeAt(v.length - 1)) ? v : jsonString(v);
  return encodeAny(v);
};

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

/** DATETIME: no zone, so no offset; the fraction at the column's precision. */
export const encodeDateTime: ValueEncoder = (v) =>
  typeof v === 'string' ? (isZeroDate(v) ? 'null' : quoted(isoDateTime(v))) : encodeAny(v);

/** TIMESTAMP: an instant, printed in the session time zone, which is UTC. */
export const encodeTimestamp: ValueEncoder = (v) =>
  typeof v === 'string' ? (isZeroDate(v) ? 'null' : quoted(isoDateTime(v) + 'Z')) : encodeAny(v);

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
export const encodeNativeJson: ValueEncoder = (v) => (typeof v === 'string' ? compactJson(v) : encodeAny(v));

/** BINARY/VARBINARY/BLOB as base64. */
export const encodeBinary: ValueEncoder = (v) =>
  Buffer.isBuffer(v) ? base64String(v) : typeof v === 'string' ? base64String(Buffer.from(v, 'utf8')) : encodeAny(v);

const ENCODERS: Readonly<Record<MySqlValueKind, ValueEncoder>> = {
  integer: encodeInteger,
  boolean: encodeBoolean,
  decimal: encodeDecimal,
  float: encodeFloat,
  double: encodeDouble,
  date: encodeDate,
  datetime: encodeDateTime,
  timestamp: encodeTimestamp,
  // TIME: the server text, which may be negative or above 24 h (`-838:59:59.000000`).
  time: jsonOfPlainText,
  'bit-boolean': encodeBitBoolean,
  bit: encodeBit,
  json: encodeNativeJson,
  // MariaDB's JSON alias: the check constraint can be bypassed (`check_constraint_checks=0`).
  'json-checked': jsonOfCheckedDocument,
  binary: encodeBinary,
  // Character types, ENUM, SET, UUID, INET, WKT: strings (the connection is utf8mb4), which encodeAny
  // renders as JSON strings.
  text: encodeAny,
  spatial: encodeAny,
  other: encodeAny,
};

export const encoderFor = kindLookup(ENCODERS, encodeAny);

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

export const createBatchRenderer = kindBatchRenderer(kindOfColumn, encoderFor);
