import { JsonKind, JsonRow, scanArrayElements } from '../json-row-scanner.js';
import type { ParquetColumnType, ParquetLeaf } from './parquet-leaf.js';
import { dateDays, timestampValue } from './parquet-temporal.js';
import { ValueMismatch } from './value-mismatch.js';

/**
 * Turns one non-null value into what hyparquet-writer takes for the column's Parquet type, or throws
 * ValueMismatch: a value is converted exactly or not at all. Values are read from a row group's own
 * copy of the rendered rows (PendingGroup), so bytes may be views of it: the group lives until its
 * row group is written.
 */
export type ValueConverter = (row: JsonRow, index: number) => unknown;

const NO_BYTES = Buffer.alloc(0);
const INTEGER = /^-?\d+$/;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** How every engine renders a non-finite float (docs/value-mapping.md, "Rules shared by every engine"). */
const NON_FINITE: ReadonlyMap<string, number> = new Map([
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
]);

function requireKind(row: JsonRow, index: number, kind: JsonKind, what: string): void {
  if (row.kind(index) !== kind) throw new ValueMismatch(`is not ${what}`);
}

const int32: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.Number, 'an integer');
  const text = row.raw(index);
  if (!INTEGER.test(text)) throw new ValueMismatch('is not an integer');
  const value = Number(text);
  if (value < INT32_MIN || value > INT32_MAX) throw new ValueMismatch('is outside the range of INT32');
  return value;
};

const int64: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.Number, 'an integer');
  const text = row.raw(index);
  if (!INTEGER.test(text)) throw new ValueMismatch('is not an integer');
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) throw new ValueMismatch('is outside the range of INT64');
  return value;
};

/** The unscaled value of decimal text (a JSON string, or a JSON integer for integer columns). */
export function unscaledDecimal(text: string, precision: number, scale: number): bigint {
  const m = DECIMAL.exec(text);
  if (m === null) throw new ValueMismatch(NON_FINITE.has(text) ? `is ${text}, which DECIMAL cannot hold` : 'is not a decimal number');
  const [, minus, integer, written = ''] = m;
  let fraction = written;
  if (fraction.length > scale) {
    // Trailing zeros past the scale change nothing; any other digit would need rounding.
    if (!/^0*$/.test(fraction.slice(scale))) throw new ValueMismatch(`has more than ${scale} digits after the point`);
    fraction = fraction.slice(0, scale);
  }
  const digits = (integer + fraction.padEnd(scale, '0')).replace(/^0+/, '');
  if (digits.length > precision) throw new ValueMismatch(`has more than ${precision - scale} digits before the point`);
  const value = BigInt(digits === '' ? '0' : digits);
  return minus === '' ? value : -value;
}

const decimal =
  (precision: number, scale: number): ValueConverter =>
  (row, index) => {
    const kind = row.kind(index);
    if (kind !== JsonKind.String && kind !== JsonKind.Number) throw new ValueMismatch('is not a decimal number');
    return unscaledDecimal(row.text(index), precision, scale);
  };

/**
 * A float from its rendered text. The engines write the shortest text that reads back as the stored
 * value, so parsing it is exact; what is checked is that the text is a float at all: a long integer
 * (a MongoDB Int64 where the sample saw doubles) whose digits no double holds fails.
 */
function floatOf(row: JsonRow, index: number): number {
  const kind = row.kind(index);
  if (kind === JsonKind.String) {
    const special = NON_FINITE.get(row.text(index));
    if (special === undefined) throw new ValueMismatch('is not a number');
    return special;
  }
  if (kind !== JsonKind.Number) throw new ValueMismatch('is not a number');
  const text = row.raw(index);
  const value = Number(text);
  if (!Number.isFinite(value)) throw new ValueMismatch('is outside the range of a double');
  if (text.length > 15 && INTEGER.test(text) && String(value) !== text && BigInt(value) !== BigInt(text)) {
    throw new ValueMismatch('has more digits than a double holds');
  }
  return value;
}

const double: ValueConverter = floatOf;

const float: ValueConverter = (row, index) => {
  const value = floatOf(row, index);
  const single = Math.fround(value);
  if (Number.isFinite(value) && !Number.isFinite(single)) throw new ValueMismatch('is outside the range of FLOAT');
  return single;
};

const boolean: ValueConverter = (row, index) => {
  const kind = row.kind(index);
  if (kind === JsonKind.True) return true;
  if (kind === JsonKind.False) return false;
  throw new ValueMismatch('is not a boolean');
};

/**
 * A string's UTF-8 bytes: a view of the group's buffer when the JSON has no escape (the bytes
 * between the quotes are the text), else the decoded text encoded anew.
 */
function stringBytes(row: JsonRow, index: number): Uint8Array {
  if (!row.escaped(index)) return row.bytes.subarray(row.start(index) + 1, row.end(index) - 1);
  const text = row.text(index);
  // Only an escape (\ud800) can spell a lone surrogate; UTF-8, which Parquet strings are, has none.
  if (LONE_SURROGATE.test(text)) throw new ValueMismatch('has a lone UTF-16 surrogate, which UTF-8 cannot encode');
  return Buffer.from(text, 'utf8');
}

const string: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.String, 'a string');
  return stringBytes(row, index);
};

/** The value's JSON text as rendered: a view of the group's buffer. */
const json: ValueConverter = (row, index) => row.bytes.subarray(row.start(index), row.end(index));

const text: ValueConverter = (row, index) => (row.kind(index) === JsonKind.String ? stringBytes(row, index) : json(row, index));

/** A hex digit's value, or -1. */
function nibble(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** Where the dashes of a canonical UUID are, from its first digit. */
const UUID_DASHES = [8, 13, 18, 23];

/** The 16 bytes of a canonical UUID (`8-4-4-4-12` hex digits, either case), read from the JSON bytes. */
const uuid: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.String, 'a UUID string');
  const bytes = row.bytes;
  const first = row.start(index) + 1;
  if (row.end(index) - first !== 37 || UUID_DASHES.some((at) => bytes[first + at] !== 0x2d))
    throw new ValueMismatch('is not a canonical UUID');
  const value = new Uint8Array(16);
  let at = first;
  for (let i = 0; i < 16; i++) {
    if (bytes[at] === 0x2d) at++;
    const high = nibble(bytes[at]);
    const low = nibble(bytes[at + 1]);
    if (high < 0 || low < 0) throw new ValueMismatch('is not a canonical UUID');
    value[i] = (high << 4) | low;
    at += 2;
  }
  return value;
};

const binary: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.String, 'a base64 string');
  const value = row.text(index);
  const bytes = Buffer.from(value, 'base64');
  // Buffer.from skips what is not base64: the text must be exactly the bytes' standard base64.
  if (bytes.toString('base64') !== value) throw new ValueMismatch('is not standard base64');
  return bytes;
};

function temporalString(row: JsonRow, index: number): string {
  requireKind(row, index, JsonKind.String, 'a date or timestamp string');
  return row.text(index);
}

/** The converter of one leaf type. */
export function leafConverter(leaf: ParquetLeaf): ValueConverter {
  switch (leaf.type) {
    case 'boolean':
      return boolean;
    case 'int32':
      return int32;
    case 'int64':
      return int64;
    case 'decimal':
      return decimal(leaf.precision, leaf.scale);
    case 'float':
      return float;
    case 'double':
      return double;
    case 'date':
      return (row, index) => dateDays(temporalString(row, index), leaf.era);
    case 'timestamp':
      return (row, index) => timestampValue(temporalString(row, index), leaf.unit, leaf.utc, leaf.era);
    case 'uuid':
      return uuid;
    case 'binary':
      return binary;
    case 'string':
      return string;
    case 'text':
      return text;
    case 'json':
      return json;
  }
}

/**
 * The converter of a column: its leaf's, or for a LIST an array of converted elements, null
 * elements kept. An element that is itself an array (a multi-dimensional PostgreSQL array) fails,
 * except where elements are JSON text, which holds it.
 */
export function columnConverter(type: ParquetColumnType): ValueConverter {
  const element = leafConverter(type.leaf);
  if (!type.list) return element;
  const nestedAllowed = type.leaf.type === 'json' || type.leaf.type === 'text';
  const elements = new JsonRow();
  return (row, index) => {
    if (row.kind(index) !== JsonKind.Array) throw new ValueMismatch('is not an array');
    scanArrayElements(row, index, elements);
    const values = new Array<unknown>(elements.count);
    for (let i = 0; i < elements.count; i++) {
      const kind = elements.kind(i);
      if (kind === JsonKind.Null) values[i] = null;
      else if (kind === JsonKind.Array && !nestedAllowed) {
        throw new ValueMismatch('is a multi-dimensional array, which a LIST of scalars cannot hold (extract it as json or csv)');
      } else {
        try {
          values[i] = element(elements, i);
        } catch (error) {
          if (error instanceof ValueMismatch)
            throw new ValueMismatch(`has an element ${elements.raw(i).slice(0, 80)} that ${error.message}`);
          throw error;
        }
      }
    }
    // Its ranges point into the batch, which is the connector's to reuse.
    elements.bytes = NO_BYTES;
    return values;
  };
}
