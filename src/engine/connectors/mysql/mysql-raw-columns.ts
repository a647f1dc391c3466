import type { ColumnInfo } from '../shared/engine-connector.js';
import { wireValueClass, type WireField, type WireValueClass } from './mysql-raw-rows.js';
import type { MySqlValueKind } from './mysql-types.js';
import { encoderFor, kindsForResult, type ValueEncoder } from './mysql-value-encoders.js';

/**
 * How the raw renderer writes one column's values. Each mode writes, straight from the wire bytes,
 * exactly what the column's encoder (mysql-value-encoders.ts) makes of the value mysql2 would
 * have produced; `Decoded` builds that value and calls the encoder, for every combination no
 * byte-wise mode covers (and for any value a mode declines, e.g. non-ASCII where ASCII is due).
 */
export const RenderMode = {
  /** int → String(number): digits without leading zeros, `-0` as `0`. */
  IntDigits: 0,
  /** int → `true` unless zero. */
  IntBool: 1,
  /** The string as is (BIGINT digits). */
  Verbatim: 2,
  /** `"` + the string + `"`, no escaping (DECIMAL, TIME). */
  Quoted: 3,
  /** The server's DOUBLE text when it ends with a digit, else a JSON string. */
  Double: 4,
  /** Zero date → null, else quoted. */
  Date: 5,
  /** Zero date → null, else quoted with the ISO `T`. */
  DateTime: 6,
  /** As DateTime, plus `Z`. */
  Timestamp: 7,
  /** MySQL's JSON, whitespace outside strings dropped. */
  CompactJson: 8,
  /** A JSON string, escaped as JSON.stringify escapes. */
  Text: 9,
  /** Bytes as a base64 string. */
  Base64: 10,
  /** Bytes → `true` if any is non-zero. */
  BytesBool: 11,
  /** The value mysql2 would produce, through the column's encoder. */
  Decoded: 12,
} as const;
export type RenderMode = (typeof RenderMode)[keyof typeof RenderMode];

/** One projected column as the raw renderer writes it. */
export interface RawColumn {
  /** `{"name":` for the first column, `,"name":` for the others, as UTF-8. */
  readonly prefix: Buffer;
  readonly mode: RenderMode;
  readonly wire: WireValueClass;
  /** mysql2 decodes these strings as ascii/latin1: only ASCII bytes read the same as UTF-8. */
  readonly asciiOnly: boolean;
  readonly encoder: ValueEncoder;
}

/** What each encoder makes of a string value, where a byte-wise mode reproduces it. */
const STRING_MODES: Partial<Record<MySqlValueKind, RenderMode>> = {
  integer: RenderMode.Verbatim,
  decimal: RenderMode.Quoted,
  time: RenderMode.Quoted,
  double: RenderMode.Double,
  date: RenderMode.Date,
  datetime: RenderMode.DateTime,
  timestamp: RenderMode.Timestamp,
  json: RenderMode.CompactJson,
  text: RenderMode.Text,
  spatial: RenderMode.Text,
  // encodeAny, encodeBit and encodeBitBoolean turn a string into a JSON string too.
  other: RenderMode.Text,
  bit: RenderMode.Text,
  'bit-boolean': RenderMode.Text,
};

export function renderModeFor(kind: MySqlValueKind, wire: WireValueClass): RenderMode {
  switch (wire) {
    case 'int':
      if (kind === 'integer' || kind === 'other') return RenderMode.IntDigits;
      return kind === 'boolean' || kind === 'bit-boolean' ? RenderMode.IntBool : RenderMode.Decoded;
    case 'bytes':
      if (kind === 'binary') return RenderMode.Base64;
      return kind === 'bit-boolean' ? RenderMode.BytesBool : RenderMode.Decoded;
    case 'mysql2':
      return RenderMode.Decoded;
    default:
      return STRING_MODES[kind] ?? RenderMode.Decoded;
  }
}

/** The render plan of a result: the request's columns, in order, with the server's fields. */
export function planRawColumns(columns: readonly ColumnInfo[], fields: readonly WireField[]): RawColumn[] {
  const kinds = kindsForResult(columns, fields);
  return columns.map((column, i) => {
    const wire = wireValueClass(fields[i] ?? {});
    return {
      prefix: Buffer.from((i === 0 ? '{' : ',') + JSON.stringify(column.name) + ':', 'utf8'),
      mode: renderModeFor(kinds[i], wire),
      wire,
      asciiOnly: wire === 'ascii' || wire === 'latin1',
      encoder: encoderFor(kinds[i]),
    };
  });
}
