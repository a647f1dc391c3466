import { JsonKind, JsonRow } from '../json-row-scanner.js';
import { arrayElements } from './json-array-elements.js';
import type { ParquetColumnType, ParquetLeaf } from './parquet-leaf.js';
import { dateDays, timestampValue } from './parquet-temporal.js';
import { ValueMismatch } from './value-mismatch.js';

/**
 * Turns one non-null value of a scanned row into what hyparquet-writer takes for the column's
 * Parquet type, or throws ValueMismatch: a value is converted exactly or not at all. What is kept
 * is a copy (a string, number, bigint or new bytes), never a view of the batch, which is reused.
 */
export type ValueConverter = (row: JsonRow, index: number) => unknown;

const NO_BYTES = Buffer.alloc(0);
const INTEGER = /^-?\d+$/;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const UUID_TEXT = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
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

function stringOf(row: JsonRow, index: number): string {
  const text = row.text(index);
  // Only an escape (\ud800) can spell a lone surrogate; UTF-8, which Parquet strings are, has none.
  if (row.escaped(index) && LONE_SURROGATE.test(text)) throw new ValueMismatch('has a lone UTF-16 surrogate, which UTF-8 cannot encode');
  return text;
}

const string: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.String, 'a string');
  return stringOf(row, index);
};

const text: ValueConverter = (row, index) => (row.kind(index) === JsonKind.String ? stringOf(row, index) : row.raw(index));

const json: ValueConverter = (row, index) => row.raw(index);

const uuid: ValueConverter = (row, index) => {
  requireKind(row, index, JsonKind.String, 'a UUID string');
  const value = row.text(index);
  if (!UUID_TEXT.test(value)) throw new ValueMismatch('is not a canonical UUID');
  return value.toLowerCase();
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
    arrayElements(row, index, elements);
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
