import { parse as parsePgArray } from 'postgres-array';
import type { ColumnInfo, RowBatch, RowFrame } from '../shared/engine-connector.js';
import { compactJson, jsonString, quoted } from '../shared/json-text.js';
import { createRowBatchRenderer } from '../shared/row-batch-renderer.js';
import { isMoney, PgOid, postgresColumnType, type PostgresColumnType } from './postgres-types.js';

/**
 * Turns the server's text for one non-NULL value into JSON text (docs/value-mapping.md,
 * "PostgreSQL"). The session is set to `TimeZone=UTC`, `DateStyle=ISO, YMD`,
 * `IntervalStyle=iso_8601`, `extra_float_digits=1` and `bytea_output=hex`; the encoders rely on
 * those formats.
 */
export type ValueEncoder = (text: string) => string;

/** text, enums, inet, xml and every type without an encoder of its own: JSON strings. */
export const encodeString: ValueEncoder = jsonString;

/** Integers: the server's digits verbatim, so 64-bit values keep every digit. */
export const encodeInteger: ValueEncoder = (text) => text;

/** numeric (and money read as numeric): exact decimal text as a string; its text needs no escaping. */
export const encodeNumeric: ValueEncoder = quoted;

/** Floats as JSON numbers; JSON has no NaN or infinities, so those become strings. */
export const encodeFloat: ValueEncoder = (text) => {
  const c = text.charCodeAt(text.length - 1);
  // Every finite float text ends with a digit; NaN, Infinity and -Infinity end with a letter.
  return c >= 48 && c <= 57 ? text : quoted(text);
};

export const encodeBool: ValueEncoder = (text) => (text === 't' ? 'true' : 'false');

/** date: `YYYY-MM-DD` already; `infinity` and `… BC` pass through unchanged. */
export const encodeDate: ValueEncoder = quoted;

/** time: `HH:MM:SS[.ffffff]` already. */
export const encodeTime: ValueEncoder = quoted;

/** interval: IntervalStyle iso_8601 already gives `P1Y2M3DT4H5M6S`. */
export const encodeInterval: ValueEncoder = quoted;

const isSpecialDateTime = (text: string): boolean => {
  const first = text.charCodeAt(0);
  // infinity / -infinity, or an era suffix (`… BC`) that ISO-8601 cannot express as is.
  return first < 48 || first > 57 || text.charCodeAt(text.length - 1) === 67; /* C */
};

/** timestamp: `YYYY-MM-DD HH:MM:SS[.ffffff]` → ISO `T` separator, no offset. */
export const encodeTimestamp: ValueEncoder = (text) => {
  if (isSpecialDateTime(text)) return quoted(text);
  const space = text.indexOf(' ');
  return quoted(space < 0 ? text : text.slice(0, space) + 'T' + text.slice(space + 1));
};

/** PG prints offsets as `+HH`, `+HH:MM` or `+HH:MM:SS`; ISO-8601 wants at least `+HH:MM`. */
function isoOffset(offset: string): string {
  return offset.length === 3 ? offset + ':00' : offset;
}

/** timestamptz: the session is UTC, so the server prints `+00`, which becomes `Z`. */
export const encodeTimestamptz: ValueEncoder = (text) => {
  if (isSpecialDateTime(text)) return quoted(text);
  const space = text.indexOf(' ');
  const iso = space < 0 ? text : text.slice(0, space) + 'T' + text.slice(space + 1);
  if (iso.endsWith('+00')) return quoted(iso.slice(0, -3) + 'Z');
  // The time part has no sign, so a sign after `T` starts the offset.
  const at = Math.max(iso.lastIndexOf('+'), iso.lastIndexOf('-'));
  return quoted(at > space ? iso.slice(0, at) + isoOffset(iso.slice(at)) : iso);
};

/** timetz: `HH:MM:SS[.ffffff]+HH[:MM]` → always `+HH:MM`. */
export const encodeTimetz: ValueEncoder = (text) => {
  const at = Math.max(text.lastIndexOf('+'), text.lastIndexOf('-'));
  return at < 0 ? quoted(text) : quoted(text.slice(0, at) + isoOffset(text.slice(at)));
};

/** uuid: hex digits and dashes, nothing to escape. */
export const encodeUuid: ValueEncoder = quoted;

/** bytea arrives as `\x` + hex (bytea_output=hex); the result carries base64 of the bytes. */
export const encodeBytea: ValueEncoder = (text) =>
  quoted(Buffer.from(text.startsWith('\\x') ? text.slice(2) : text, 'hex').toString('base64'));

/** json/jsonb embedded as JSON, compacted; numbers copied as written, never parsed. */
export const encodeJson: ValueEncoder = compactJson;

const SCALAR_ENCODERS: ReadonlyMap<number, ValueEncoder> = new Map<number, ValueEncoder>([
  [PgOid.bool, encodeBool],
  [PgOid.bytea, encodeBytea],
  [PgOid.int2, encodeInteger],
  [PgOid.int4, encodeInteger],
  [PgOid.int8, encodeInteger],
  [PgOid.oid, encodeInteger],
  [PgOid.numeric, encodeNumeric],
  [PgOid.money, encodeNumeric],
  [PgOid.float4, encodeFloat],
  [PgOid.float8, encodeFloat],
  [PgOid.date, encodeDate],
  [PgOid.time, encodeTime],
  [PgOid.timetz, encodeTimetz],
  [PgOid.timestamp, encodeTimestamp],
  [PgOid.timestamptz, encodeTimestamptz],
  [PgOid.interval, encodeInterval],
  [PgOid.uuid, encodeUuid],
  [PgOid.json, encodeJson],
  [PgOid.jsonb, encodeJson],
]);

/** Encoder of one scalar type; text, enums, inet, xml and every unknown type become strings. */
export function scalarEncoder(typeOid: number): ValueEncoder {
  return SCALAR_ENCODERS.get(typeOid) ?? encodeString;
}

type Nested = string | null | Nested[];

function renderArray(items: Nested[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (i > 0) out += ',';
    out += item === null ? 'null' : typeof item === 'string' ? item : renderArray(item);
  }
  return out + ']';
}

/** Arrays (any dimension, NULL elements) as JSON arrays whose elements use the element encoder. */
export function arrayEncoder(element: ValueEncoder, delimiter = ','): ValueEncoder {
  return (text) => {
    const first = text.charCodeAt(0);
    // Only `{…}` / `[lo:hi]={…}` with comma delimiters is array text postgres-array can read;
    // vector types (int2vector) and `;`-delimited element types stay strings.
    if ((first !== 123 /* { */ && first !== 91) /* [ */ || delimiter !== ',') return encodeString(text);
    return renderArray(parsePgArray(text, element) as Nested[]);
  };
}

/** The encoder for one projected column, chosen once per read from its engine type. */
export function columnEncoder(type: PostgresColumnType | null): ValueEncoder {
  if (type === null) return encodeString;
  if (type.elementOid !== undefined) {
    const element = isMoney(type) ? encodeNumeric : scalarEncoder(type.elementOid);
    return arrayEncoder(element, type.elementDelimiter ?? ',');
  }
  return scalarEncoder(type.typeOid);
}

export type RawRow = readonly (string | null)[];

/**
 * Builds the renderer of a batch: rows (values in projection order, server text) → JSON objects
 * framed by `frame` (absent: joined with commas), in ~48 KiB chunks (see row-batch-renderer).
 */
export function createBatchRenderer(columns: readonly ColumnInfo[], frame?: RowFrame): (rows: readonly RawRow[]) => RowBatch[] {
  return createRowBatchRenderer(
    columns.map((c) => c.name),
    columns.map((c) => columnEncoder(postgresColumnType(c))),
    frame,
  );
}
