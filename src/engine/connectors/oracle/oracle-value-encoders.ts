import type { ColumnInfo, RowBatch, RowFrame } from '../shared/engine-connector.js';
import { jsonOfValue } from '../shared/json-of-value.js';
import { base64String, compactJson, float32Text, jsonNumber, jsonString, quoted } from '../shared/json-text.js';
import { createRowBatchRenderer } from '../shared/row-batch-renderer.js';
import { kindLookup } from '../shared/type-table.js';
import { oracleColumnType, type OracleColumnType, type OracleValueKind } from './oracle-types.js';

/**
 * A value as node-oracledb (thin) hands it over with this connector's fetch settings
 * (oracle-client.ts `fetchTypeHandler`, oracle-sql.ts projections), rows as arrays:
 * - string: NUMBER (the driver's exact decimal text, e.g. `.5`, `-12.3`), dates and timestamps
 *   (server TO_CHAR text), VARCHAR2/CHAR/LONG/CLOB/NCLOB/ROWID/XMLTYPE, JSON (JSON_SERIALIZE text);
 * - number: BINARY_FLOAT / BINARY_DOUBLE; boolean: BOOLEAN;
 * - Buffer: RAW, LONG RAW, BLOB;
 * - objects: INTERVAL values ({years, months} / {days, hours, minutes, seconds, fseconds}),
 *   VECTOR (typed arrays, or a sparse vector), object types (DbObject with toJSON).
 */
export type RawRow = readonly unknown[];

/** Turns one non-NULL value into JSON text (docs/value-mapping.md, "Oracle"). */
export type ValueEncoder = (value: unknown) => string;

/**
 * Any value by its own shape: the fallback when a value is not what its column type promised.
 * Beyond the shapes every engine knows, vectors and object types (DbObject has toJSON).
 */
export const encodeAny: ValueEncoder = (v) => {
  if (typeof v !== 'object' || Buffer.isBuffer(v) || v instanceof Date) return jsonOfValue(v);
  if (ArrayBuffer.isView(v)) return encodeVector(v);
  try {
    // Anything JSON cannot express falls back to its text.
    const json = JSON.stringify(v);
    if (typeof json === 'string') return json;
  } catch {
    // fall through
  }
  return jsonString(String(v));
};

/** The driver's NUMBER text writes `0.5` as `.5`; JSON and people want the leading zero. */
export function normalizeNumberText(text: string): string {
  if (text.charCodeAt(0) === 46 /* . */) return '0' + text;
  if (text.charCodeAt(0) === 45 /* - */ && text.charCodeAt(1) === 46) return '-0' + text.slice(1);
  return text;
}

const INTEGER_TEXT = /^-?\d+$/;

/** NUMBER with scale ≤ 0: the digits verbatim, so 38-digit values keep every digit. */
export const encodeInteger: ValueEncoder = (v) => {
  if (typeof v === 'string') return INTEGER_TEXT.test(v) ? v : quoted(normalizeNumberText(v));
  return encodeAny(v);
};

/** NUMBER without scale, FLOAT: the exact decimal text as a string. */
export const encodeDecimal: ValueEncoder = (v) => (typeof v === 'string' ? quoted(normalizeNumberText(v)) : encodeAny(v));

/**
 * NUMBER(p,s) with s > 0: Oracle stores no trailing zeros (10.50 is kept as 10.5), so the text is
 * padded to the declared scale, as a DECIMAL(p,s) reads on the other engines (`"10.50"`).
 */
export function scaledDecimalEncoder(scale: number): ValueEncoder {
  return (v) => {
    if (typeof v !== 'string') return encodeAny(v);
    const text = normalizeNumberText(v);
    if (!/^-?\d+(\.\d+)?$/.test(text)) return quoted(text);
    const dot = text.indexOf('.');
    const digits = dot < 0 ? 0 : text.length - dot - 1;
    if (digits >= scale) return quoted(text);
    return quoted((dot < 0 ? text + '.' : text) + '0'.repeat(scale - digits));
  };
}

export const encodeBinaryDouble: ValueEncoder = (v) => (typeof v === 'number' ? jsonNumber(v) : encodeAny(v));

/** BINARY_FLOAT arrives as the double of the stored single: its shortest single-precision text. */
export const encodeBinaryFloat: ValueEncoder = (v) => (typeof v === 'number' ? float32Text(v) : encodeAny(v));

/** TO_CHAR with `SYYYY` prints a space (never `+`, but either is dropped) before AD years, `-` before BC ones. */
const dateTimeText = (text: string): string => {
  const first = text.charCodeAt(0);
  return first === 32 || first === 43 /* + */ ? text.slice(1) : text;
};

/** DATE and TIMESTAMP: `YYYY-MM-DDTHH:MM:SS[.fff]` from the server, no offset. */
export const encodeDateTime: ValueEncoder = (v) => (typeof v === 'string' ? quoted(dateTimeText(v)) : encodeAny(v));

/** TIMESTAMP WITH TIME ZONE: the stored offset (`+05:30`), `Z` for UTC. */
export const encodeTimestampTz: ValueEncoder = (v) => {
  if (typeof v !== 'string') return encodeAny(v);
  const text = dateTimeText(v);
  return quoted(text.endsWith('+00:00') || text.endsWith('-00:00') ? text.slice(0, -6) + 'Z' : text);
};

/** TIMESTAMP WITH LOCAL TIME ZONE: printed in the session time zone, which is UTC. */
export const encodeTimestampLtz: ValueEncoder = (v) => (typeof v === 'string' ? quoted(dateTimeText(v) + 'Z') : encodeAny(v));

const int = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0);

/** INTERVAL YEAR TO MONTH → `P1Y2M`, `-P3M`, `P0M`. Oracle signs every component alike. */
export const encodeIntervalYm: ValueEncoder = (v) => {
  if (typeof v !== 'object' || v === null || !('years' in v)) return encodeAny(v);
  const { years, months } = v as { years?: unknown; months?: unknown };
  const y = int(years);
  const m = int(months);
  const sign = y < 0 || m < 0 ? '-' : '';
  const body = (y !== 0 ? `${Math.abs(y)}Y` : '') + (m !== 0 || y === 0 ? `${Math.abs(m)}M` : '');
  return quoted(`${sign}P${body}`);
};

/** INTERVAL DAY TO SECOND → `P1DT2H3M4.5S`, `-PT0.000001S`, `PT0S`; fractions trimmed. */
export const encodeIntervalDs: ValueEncoder = (v) => {
  if (typeof v !== 'object' || v === null || !('days' in v)) return encodeAny(v);
  const parts = v as { days?: unknown; hours?: unknown; minutes?: unknown; seconds?: unknown; fseconds?: unknown };
  const values = [int(parts.days), int(parts.hours), int(parts.minutes), int(parts.seconds), int(parts.fseconds)];
  const sign = values.some((n) => n < 0) ? '-' : '';
  const [d, h, mi, s, ns] = values.map(Math.abs);
  let time = (h !== 0 ? `${h}H` : '') + (mi !== 0 ? `${mi}M` : '');
  if (s !== 0 || ns !== 0) time += ns === 0 ? `${s}S` : `${s}.${String(ns).padStart(9, '0').replace(/0+$/, '')}S`;
  if (d === 0 && time === '') return quoted('PT0S');
  return quoted(`${sign}P${d !== 0 ? `${d}D` : ''}${time === '' ? '' : 'T' + time}`);
};

/** VECTOR: dense vectors as JSON arrays (FLOAT32 in its shortest single text); sparse as an object. */
export function encodeVector(v: unknown): string {
  if (v instanceof Float32Array) return '[' + Array.from(v, float32Text).join(',') + ']';
  if (v instanceof Float64Array) return '[' + Array.from(v, jsonNumber).join(',') + ']';
  if (v instanceof Int8Array || v instanceof Uint8Array) return '[' + v.join(',') + ']';
  if (typeof v === 'object' && v !== null && 'indices' in v && 'values' in v && 'numDimensions' in v) {
    const sparse = v as { numDimensions: unknown; indices: ArrayLike<number>; values: ArrayLike<number> };
    const values = sparse.values instanceof Float32Array ? Array.from(sparse.values, float32Text) : Array.from(sparse.values, jsonNumber);
    return `{"numDimensions":${int(sparse.numDimensions)},"indices":[${Array.from(sparse.indices).join(',')}],"values":[${values.join(',')}]}`;
  }
  return ArrayBuffer.isView(v) ? jsonString(String(v)) : encodeAny(v);
}

export const encodeBoolean: ValueEncoder = (v) => (typeof v === 'boolean' ? (v ? 'true' : 'false') : encodeAny(v));

export const encodeText: ValueEncoder = (v) => (typeof v === 'string' ? jsonString(v) : encodeAny(v));

export const encodeBinary: ValueEncoder = (v) => (Buffer.isBuffer(v) ? base64String(v) : encodeAny(v));

/** JSON (21c+), read through JSON_SERIALIZE: embedded, compacted, numbers never re-parsed. */
export const encodeOracleJson: ValueEncoder = (v) => (typeof v === 'string' ? compactJson(v) : encodeAny(v));

const ENCODERS: Readonly<Record<OracleValueKind, ValueEncoder>> = {
  integer: encodeInteger,
  decimal: encodeDecimal,
  binary_float: encodeBinaryFloat,
  binary_double: encodeBinaryDouble,
  date: encodeDateTime,
  timestamp: encodeDateTime,
  timestamp_tz: encodeTimestampTz,
  timestamp_ltz: encodeTimestampLtz,
  interval_ym: encodeIntervalYm,
  interval_ds: encodeIntervalDs,
  text: encodeText,
  char: encodeText,
  long: encodeText,
  clob: encodeText,
  binary: encodeBinary,
  long_raw: encodeBinary,
  blob: encodeBinary,
  boolean: encodeBoolean,
  json: encodeOracleJson,
  vector: encodeVector,
  rowid: encodeText,
  xml: encodeText,
  bfile: encodeAny,
  other: encodeAny,
};

export const encoderFor = kindLookup(ENCODERS, encodeAny);

/** The encoder for one projected column, chosen once per read from its engine type. */
export function columnEncoder(type: OracleColumnType | null): ValueEncoder {
  if (type === null) return encodeAny;
  if (type.kind === 'decimal' && type.dataType === 'NUMBER' && type.scale !== null && type.scale > 0) {
    return scaledDecimalEncoder(type.scale);
  }
  return encoderFor(type.kind);
}

/** Renders rows as JSON objects framed by `frame` (absent: joined with commas), in ~48 KiB chunks (see row-batch-renderer). */
export function createBatchRenderer(columns: readonly ColumnInfo[], frame?: RowFrame): (rows: readonly RawRow[]) => RowBatch[] {
  return createRowBatchRenderer(
    columns.map((c) => c.name),
    columns.map((c) => columnEncoder(oracleColumnType(c))),
    frame,
  );
}
