import { base64String, jsonDate, jsonNumber, jsonString } from '../shared/json-text.js';

/**
 * BSON values → JSON text (docs/value-mapping.md, "MongoDB"), written straight to text without an
 * intermediate JSON object, so Long and Decimal128 keep every digit. The input is what the driver
 * hands over with
 * `promoteValues: false, promoteLongs: false, promoteBuffers: false, bsonRegExp: true`: every
 * number arrives as Int32, Long or Double and nothing is silently turned into a JS number.
 *
 * | BSON                   | JSON                                                          |
 * |------------------------|---------------------------------------------------------------|
 * | null, undefined        | null                                                          |
 * | ObjectId               | "24-hex" string                                               |
 * | Date                   | "YYYY-MM-DDTHH:MM:SS.mmmZ"; outside JS Date range: null       |
 * | Decimal128             | exact string ("10.50", "1E+3", "NaN")                         |
 * | Long                   | integer, exact digits                                         |
 * | Int32                  | integer                                                       |
 * | Double                 | number; NaN / Infinity / -Infinity as strings                 |
 * | Boolean, String        | boolean, string                                               |
 * | Binary subtype 4 (16B) | canonical UUID string                                         |
 * | Binary (other)         | base64 string                                                 |
 * | Timestamp              | {"t": seconds, "i": increment} (Extended JSON's field names)  |
 * | Regular expression     | "/pattern/options"                                            |
 * | MinKey / MaxKey        | "MinKey" / "MaxKey"                                           |
 * | Code (with scope too)  | the code text (a scope is dropped)                            |
 * | Symbol                 | its string                                                    |
 * | DBRef                  | {"$ref": …, "$id": …, "$db"?: …, …other fields}               |
 * | sub-document           | object, keys in the order the driver's object has them        |
 * | array                  | array, elements mapped recursively                            |
 */

/**
 * How values must arrive (client, find and aggregate options): Int32/Double/Long/Binary stay
 * their BSON classes instead of JS numbers and Buffers, regexes stay BSONRegExp (a JS RegExp
 * cannot hold every PCRE pattern).
 */
export const BSON_READ_OPTIONS = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

function bytesOf(binary: { buffer: Uint8Array; position?: number }): Buffer {
  const bytes = binary.buffer;
  const length = typeof binary.position === 'number' ? binary.position : bytes.length;
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(length, bytes.length));
}

function renderBinary(binary: { buffer: Uint8Array; position?: number; sub_type?: number }): string {
  const bytes = bytesOf(binary);
  if (binary.sub_type === 4 && bytes.length === 16) {
    const hex = bytes.toString('hex');
    return `"${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}"`;
  }
  // Subtype 3 (legacy UUID) has a driver-specific byte order: base64 keeps the bytes as stored.
  return base64String(bytes);
}

function renderArray(items: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += renderValue(items[i]);
  }
  return out + ']';
}

/** Own enumerable keys in the object's order (the bson package defines `__proto__` as an own key). */
function renderDocument(doc: Record<string, unknown>): string {
  let out = '{';
  let first = true;
  for (const key of Object.keys(doc)) {
    out += (first ? '' : ',') + jsonString(key) + ':' + renderValue(doc[key]);
    first = false;
  }
  return out + '}';
}

interface DbRefLike {
  collection: string;
  oid: unknown;
  db?: string;
  fields?: Record<string, unknown>;
}

function renderDbRef(ref: DbRefLike): string {
  let out = '{"$ref":' + jsonString(String(ref.collection)) + ',"$id":' + renderValue(ref.oid);
  if (ref.db) out += ',"$db":' + jsonString(ref.db);
  for (const [key, value] of Object.entries(ref.fields ?? {})) out += ',' + jsonString(key) + ':' + renderValue(value);
  return out + '}';
}

type Tagged = { _bsontype: string } & Record<string, unknown>;

function renderTagged(value: Tagged): string {
  switch (value._bsontype) {
    case 'ObjectId':
      return '"' + (value as unknown as { toHexString(): string }).toHexString() + '"';
    case 'Decimal128':
      // Digits and an exponent, or NaN/Infinity: nothing to escape.
      return '"' + String(value) + '"';
    case 'Long':
      return String(value);
    case 'Int32':
      return String(value.value);
    case 'Double':
      return jsonNumber(value.value as number);
    case 'Binary':
      return renderBinary(value as unknown as { buffer: Uint8Array; position?: number; sub_type?: number });
    case 'Timestamp':
      return `{"t":${String(value.t)},"i":${String(value.i)}}`;
    case 'BSONRegExp':
      return jsonString(`/${String(value.pattern)}/${String(value.options)}`);
    case 'MinKey':
      return '"MinKey"';
    case 'MaxKey':
      return '"MaxKey"';
    case 'Code':
      return jsonString(String(value.code));
    case 'BSONSymbol':
      return jsonString(String(value.value));
    case 'DBRef':
      return renderDbRef(value as unknown as DbRefLike);
    default:
      // A BSON class this connector does not know: its own string form, never a crash.
      return jsonString(String(value));
  }
}

/** One value as JSON text; null, undefined and missing values are `null`. */
export function renderValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return jsonNumber(value);
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return 'null';
  }
  if (Array.isArray(value)) return renderArray(value);
  // BSON dates are int64 milliseconds; beyond ±8.64e15 ms JS has no Date and the driver hands
  // over an invalid one, which jsonDate renders as null.
  if (value instanceof Date) return jsonDate(value);
  const tag = (value as { _bsontype?: unknown })._bsontype;
  if (typeof tag === 'string') return renderTagged(value as Tagged);
  if (value instanceof RegExp) return jsonString(`/${value.source}/${value.flags}`);
  if (value instanceof Uint8Array) return base64String(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  return renderDocument(value as Record<string, unknown>);
}
