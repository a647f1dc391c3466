import type { ColumnInfo } from '../shared/engine-connector.js';
import {
  columnEncoder,
  encodeBool,
  encodeFloat,
  encodeInteger,
  encodeNumeric,
  encodeString,
  encodeTimestamp,
  encodeTimestamptz,
  type ValueEncoder,
} from './postgres-value-encoders.js';
import { postgresColumnType } from './postgres-types.js';

/**
 * How the COPY renderer turns one column's COPY text into JSON bytes. The kinds with a fast path
 * are exactly the columns whose cursor-path encoder they reproduce byte for byte; everything else
 * (arrays, bytea, json, timetz, unusual timestamps) is unescaped to a string and given to that
 * encoder, so both paths share one definition of every value's JSON.
 */
export const enum CopyKind {
  /** Digits as sent: integers. */
  Verbatim,
  /** Digits as sent, or a quoted string for NaN and the infinities: floats. */
  Float,
  /** `t` / `f`. */
  Bool,
  /** Text that never holds an escape, in quotes: numeric, uuid, date, time, interval. */
  Quoted,
  /** COPY-unescaped, then escaped exactly as JSON.stringify does. */
  Text,
  /** `YYYY-MM-DD HH:MM:SS[.f]` gets its `T`; anything else goes to the encoder. */
  Timestamp,
  /** As Timestamp, and the session's `+00` becomes `Z`. */
  Timestamptz,
  /** Unescaped to a string and rendered by `encoder`. */
  Encoded,
}

export interface CopyColumn {
  readonly kind: CopyKind;
  /** `{"name":` for the first column, `,"name":` for the others, as UTF-8. */
  readonly prefix: Buffer;
  /** The cursor path's encoder, used by Encoded and by the slow forms of the other kinds. */
  readonly encoder: ValueEncoder;
}

export interface CopyColumnOptions {
  /**
   * The database stores bytes without an encoding (SQL_ASCII): text may not be UTF-8, so it is
   * decoded like the cursor path decodes it (invalid sequences become U+FFFD) rather than copied.
   */
  readonly bytesMayNotBeUtf8: boolean;
}

function kindOf(encoder: ValueEncoder, options: CopyColumnOptions): CopyKind {
  switch (encoder) {
    case encodeInteger:
      return CopyKind.Verbatim;
    case encodeFloat:
      return CopyKind.Float;
    case encodeBool:
      return CopyKind.Bool;
    // numeric, uuid, date, time and interval all share this one quoting function.
    case encodeNumeric:
      return CopyKind.Quoted;
    case encodeString:
      return options.bytesMayNotBeUtf8 ? CopyKind.Encoded : CopyKind.Text;
    case encodeTimestamp:
      return CopyKind.Timestamp;
    case encodeTimestamptz:
      return CopyKind.Timestamptz;
    default:
      return CopyKind.Encoded;
  }
}

/** The per-column plan of one projection, fixed before the first byte arrives. */
export function copyColumns(columns: readonly ColumnInfo[], options: CopyColumnOptions): CopyColumn[] {
  return columns.map((column, i) => {
    const encoder = columnEncoder(postgresColumnType(column));
    return {
      kind: kindOf(encoder, options),
      prefix: Buffer.from((i === 0 ? '{' : ',') + JSON.stringify(column.name) + ':', 'utf8'),
      encoder,
    };
  });
}
