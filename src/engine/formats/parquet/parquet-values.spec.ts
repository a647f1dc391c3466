import { describe, expect, it } from 'vitest';
import { JsonKind, type JsonRow, scanRows } from '../json-row-scanner.js';
import {
  date,
  decimalOf,
  DOUBLE,
  FLOAT,
  INT32,
  INT64,
  JSON_TEXT,
  type ParquetColumnType,
  scalar,
  STRING,
  TEXT,
  timestamp,
  UUID,
} from './parquet-leaf.js';
import { daysFromCivil, timestampValue } from './parquet-temporal.js';
import { columnConverter, unscaledDecimal } from './parquet-values.js';
import { ValueMismatch } from './value-mismatch.js';

/** Converts one value, given as the JSON text a connector renders, for a column of `type`. */
function convert(type: ParquetColumnType, json: string): unknown {
  let result: unknown;
  scanRows(Buffer.from(`{"v":${json}}`), (row: JsonRow) => {
    result = row.kind(0) === JsonKind.Null ? null : columnConverter(type)(row, 0);
  });
  return result;
}

/** The text of converted bytes (strings, JSON and list elements are handed to the writer as UTF-8). */
const utf8 = (value: unknown): string => Buffer.from(value as Uint8Array).toString('utf8');

/** The message of the ValueMismatch the conversion throws. */
function refusal(type: ParquetColumnType, json: string): string {
  try {
    convert(type, json);
  } catch (error) {
    if (error instanceof ValueMismatch) return error.message;
    throw error;
  }
  throw new Error(`${json} was converted`);
}

describe('integers', () => {
  it('INT32 and INT64 take JSON integers in range, exactly', () => {
    expect(convert(INT32, '-2147483648')).toBe(-2147483648);
    expect(convert(INT32, '2147483647')).toBe(2147483647);
    expect(convert(INT64, '-9223372036854775808')).toBe(-9223372036854775808n);
    expect(convert(INT64, '9223372036854775807')).toBe(9223372036854775807n);
    expect(convert(INT64, '9007199254740993')).toBe(9007199254740993n);
  });

  it('refuse what is not an integer of their width', () => {
    expect(refusal(INT32, '2147483648')).toBe('is outside the range of INT32');
    expect(refusal(INT64, '9223372036854775808')).toBe('is outside the range of INT64');
    expect(refusal(INT64, '1.5')).toBe('is not an integer');
    expect(refusal(INT64, '1e3')).toBe('is not an integer');
    expect(refusal(INT32, '"7"')).toBe('is not an integer');
  });
});

describe('decimals', () => {
  it('are the unscaled value of their exact digits', () => {
    expect(unscaledDecimal('-0.05', 10, 2)).toBe(-5n);
    expect(unscaledDecimal('100.50', 10, 2)).toBe(10050n);
    expect(unscaledDecimal('0', 10, 2)).toBe(0n);
    expect(unscaledDecimal('1234567890123456789012345678.0123456789', 38, 10)).toBe(12345678901234567890123456780123456789n);
    expect(unscaledDecimal('-9999999999999999999999999999.9999999999', 38, 10)).toBe(-(10n ** 38n - 1n));
    // Padded to the scale, or trimmed when only zeros are past it: the same value.
    expect(unscaledDecimal('10.5', 10, 2)).toBe(1050n);
    expect(unscaledDecimal('7', 10, 2)).toBe(700n);
    expect(unscaledDecimal('10.500', 10, 2)).toBe(1050n);
    expect(convert(decimalOf(20, 0), '18446744073709551615')).toBe(18446744073709551615n);
    expect(convert(decimalOf(38, 10), '"-0.0500000000"')).toBe(-500000000n);
  });

  it('refuse NaN, rounding and digits past the precision', () => {
    expect(refusal(decimalOf(10, 2), '"NaN"')).toBe('is NaN, which DECIMAL cannot hold');
    expect(refusal(decimalOf(10, 2), '"1.005"')).toBe('has more than 2 digits after the point');
    expect(refusal(decimalOf(5, 2), '"1000.00"')).toBe('has more than 3 digits before the point');
    expect(refusal(decimalOf(10, 2), '"1E+3"')).toBe('is not a decimal number');
    expect(refusal(decimalOf(10, 2), 'true')).toBe('is not a decimal number');
  });
});

describe('floats', () => {
  it('DOUBLE keeps the value its shortest text names, -0 and the non-finite strings included', () => {
    expect(convert(DOUBLE, '0.30000000000000004')).toBe(0.30000000000000004);
    expect(convert(DOUBLE, '1e300')).toBe(1e300);
    expect(convert(DOUBLE, '1.152921504606847e+18')).toBe(2 ** 60);
    expect(convert(DOUBLE, '1152921504606847000')).toBe(2 ** 60);
    expect(Object.is(convert(DOUBLE, '-0'), -0)).toBe(true);
    expect(convert(DOUBLE, '"NaN"')).toBeNaN();
    expect(convert(DOUBLE, '"-Infinity"')).toBe(Number.NEGATIVE_INFINITY);
  });

  it('FLOAT is the single its shortest single-precision text names', () => {
    expect(convert(FLOAT, '0.1')).toBe(Math.fround(0.1));
    expect(convert(FLOAT, '3.4028235e+38')).toBe(Math.fround(3.4028235e38));
    expect(convert(FLOAT, '"Infinity"')).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuse digits no double holds, overflow and other strings', () => {
    expect(refusal(DOUBLE, '12345678901234567890')).toBe('has more digits than a double holds');
    expect(refusal(DOUBLE, '1e400')).toBe('is outside the range of a double');
    expect(refusal(FLOAT, '1e39')).toBe('is outside the range of FLOAT');
    expect(refusal(DOUBLE, '"nan"')).toBe('is not a number');
  });
});

describe('dates and timestamps', () => {
  it('count days of the proleptic Gregorian calendar from 1970-01-01, as Date.UTC does', () => {
    for (const [y, m, d] of [
      [1970, 1, 1],
      [2024, 2, 29],
      [1, 1, 1],
      [1582, 10, 4],
      [9999, 12, 31],
      [1900, 3, 1],
      [2000, 2, 29],
    ]) {
      const utc = new Date(0);
      utc.setUTCFullYear(y, m - 1, d);
      expect(daysFromCivil(y, m, d), `${y}-${m}-${d}`).toBe(utc.getTime() / 86_400_000);
    }
    // Astronomical year 0 is 1 BC, a leap year.
    expect(daysFromCivil(0, 12, 31) + 1).toBe(daysFromCivil(1, 1, 1));
    expect(daysFromCivil(0, 2, 29) + 1).toBe(daysFromCivil(0, 3, 1));
  });

  it('DATE from ISO dates, PostgreSQL BC dates and their extremes', () => {
    expect(convert(date('pg'), '"2024-02-29"')).toBe(19_782);
    expect(convert(date('pg'), '"1970-01-01"')).toBe(0);
    // 44 BC is astronomical year -43.
    expect(convert(date('pg'), '"0044-03-15 BC"')).toBe(daysFromCivil(-43, 3, 15));
    expect(convert(date('pg'), '"4713-11-24 BC"')).toBe(daysFromCivil(-4712, 11, 24));
    expect(convert(date('pg'), '"5874897-12-31"')).toBe(daysFromCivil(5_874_897, 12, 31));
    expect(convert(date('iso'), '"0000-01-01"')).toBe(daysFromCivil(0, 1, 1));
  });

  it('TIMESTAMP in microseconds or milliseconds, UTC where the column is', () => {
    expect(convert(timestamp('MICROS', false), '"2024-01-15T10:20:30.123456"')).toBe(1_705_314_030_123_456n);
    expect(convert(timestamp('MICROS', false), '"2024-01-15T10:20:30"')).toBe(1_705_314_030_000_000n);
    expect(convert(timestamp('MICROS', false), '"2024-01-15T10:20:30.5"')).toBe(1_705_314_030_500_000n);
    expect(convert(timestamp('MICROS', true), '"2024-01-15T08:20:30.123456Z"')).toBe(1_705_306_830_123_456n);
    expect(convert(timestamp('MILLIS', true), '"2024-01-15T08:20:30.123Z"')).toBe(1_705_306_830_123n);
    expect(convert(timestamp('MICROS', false), '"1969-12-31T23:59:59.999999"')).toBe(-1n);
    // Zeros past the unit change nothing.
    expect(convert(timestamp('MICROS', false), '"2024-01-15T10:20:30.123456000"')).toBe(1_705_314_030_123_456n);
    // PostgreSQL's BC text, with the session offset; Oracle's negative year is the same day.
    const bc = BigInt(daysFromCivil(-43, 3, 15) * 86_400 + 12 * 3600) * 1_000_000n;
    expect(convert(timestamp('MICROS', true, 'pg'), '"0044-03-15 12:00:00+00 BC"')).toBe(bc);
    expect(convert(timestamp('MICROS', false, 'pg'), '"0044-03-15 12:00:00 BC"')).toBe(bc);
    expect(convert(timestamp('MICROS', false, 'oracle'), '"-0044-03-15T12:00:00"')).toBe(bc);
  });

  it('refuse infinity, zones the column does not have, finer fractions and impossible dates', () => {
    expect(refusal(date('pg'), '"infinity"')).toBe('is infinity, which a Parquet date or timestamp cannot hold');
    expect(refusal(timestamp('MICROS', false, 'pg'), '"-infinity"')).toBe('is -infinity, which a Parquet date or timestamp cannot hold');
    expect(refusal(timestamp('MICROS', false), '"2024-01-15T10:20:30.1234567"')).toBe('has more than 6 fraction digits');
    expect(refusal(timestamp('MILLIS', true), '"2024-01-15T10:20:30.1234Z"')).toBe('has more than 3 fraction digits');
    expect(refusal(timestamp('MICROS', true), '"2024-01-15T10:20:30"')).toBe('has no UTC designator');
    expect(refusal(timestamp('MICROS', false), '"2024-01-15T10:20:30Z"')).toBe('has a zone, which this column does not');
    expect(refusal(timestamp('MICROS', true), '"2024-01-15T10:20:30+05:30"')).toBe('has an offset other than UTC');
    expect(refusal(date('iso'), '"2023-02-29"')).toBe('is not a calendar date');
    expect(refusal(date('iso'), '"2024-01-15T00:00:00"')).toBe('is not a date without a time');
    expect(refusal(date('iso'), '"0044-03-15 BC"')).toBe('has an era this engine does not write');
    expect(refusal(timestamp('MICROS', false), '"2024-01-15T24:00:00"')).toBe('is not a time of day');
    expect(refusal(date('iso'), '20240115')).toBe('is not a date or timestamp string');
    expect(() => timestampValue('294277-01-01T00:00:00', 'MICROS', false, 'pg')).toThrow('outside the range of a Parquet timestamp');
  });
});

describe('strings, bytes and UUIDs', () => {
  it('STRING decodes escapes and keeps astral characters; TEXT and JSON take any value', () => {
    expect(utf8(convert(STRING, '"a\\"b\\\\c\\n😀"'))).toBe('a"b\\c\n😀');
    expect(utf8(convert(STRING, '""'))).toBe('');
    expect(utf8(convert(STRING, '"\\ud83d\\ude00"'))).toBe('😀');
    expect(utf8(convert(STRING, '"Ünïcødé 😀"'))).toBe('Ünïcødé 😀');
    expect(utf8(convert(TEXT, '"x"'))).toBe('x');
    expect(utf8(convert(TEXT, '{"a":1}'))).toBe('{"a":1}');
    expect(utf8(convert(JSON_TEXT, '"x"'))).toBe('"x"');
    expect(utf8(convert(JSON_TEXT, '{"big":12345678901234567890}'))).toBe('{"big":12345678901234567890}');
  });

  it('STRING refuses a non-string and a lone surrogate, which UTF-8 has no bytes for', () => {
    expect(refusal(STRING, '12')).toBe('is not a string');
    expect(refusal(STRING, '"a\\ud800b"')).toBe('has a lone UTF-16 surrogate, which UTF-8 cannot encode');
    expect(refusal(TEXT, '"\\udc00"')).toBe('has a lone UTF-16 surrogate, which UTF-8 cannot encode');
  });

  it('BINARY decodes standard base64 and refuses anything else', () => {
    expect(convert(scalar({ type: 'binary' }), '"AP8Q"')).toEqual(Buffer.from([0, 255, 16]));
    expect(convert(scalar({ type: 'binary' }), '""')).toEqual(Buffer.alloc(0));
    expect(refusal(scalar({ type: 'binary' }), '"AP8Q!"')).toBe('is not standard base64');
    expect(refusal(scalar({ type: 'binary' }), '"AQ"')).toBe('is not standard base64');
  });

  it('UUID takes canonical text, in either case, as its 16 bytes', () => {
    const bytes = Buffer.from('a0eebc999c0b4ef8bb6d6bb9bd380a11', 'hex');
    expect(Buffer.from(convert(UUID, '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"') as Uint8Array)).toEqual(bytes);
    expect(Buffer.from(convert(UUID, '"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"') as Uint8Array)).toEqual(bytes);
    expect(refusal(UUID, '"a0eebc999c0b4ef8bb6d6bb9bd380a11"')).toBe('is not a canonical UUID');
    expect(refusal(UUID, '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g"')).toBe('is not a canonical UUID');
    expect(refusal(UUID, '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1"')).toBe('is not a canonical UUID');
  });
});

describe('lists', () => {
  const list = (type: ParquetColumnType): ParquetColumnType => ({ leaf: type.leaf, list: true });

  it('convert each element by the element type, nulls and exact digits kept', () => {
    expect(convert(list(INT64), '[1,null,9223372036854775807]')).toEqual([1n, null, 9223372036854775807n]);
    expect(convert(list(INT64), '[]')).toEqual([]);
    expect(convert(list(decimalOf(10, 2)), '["1.50",null,"-0.05"]')).toEqual([150n, null, -5n]);
    expect((convert(list(STRING), '["a,b","]\\"",""]') as unknown[]).map(utf8)).toEqual(['a,b', ']"', '']);
    expect((convert(list(JSON_TEXT), '[{"a":[1,2]},[3],"s",12345678901234567890]') as unknown[]).map(utf8)).toEqual([
      '{"a":[1,2]}',
      '[3]',
      '"s"',
      '12345678901234567890',
    ]);
  });

  it('refuse a multi-dimensional value and name the element that does not fit', () => {
    expect(refusal(list(INT32), '[[1,null],[3,4]]')).toBe(
      'is a multi-dimensional array, which a LIST of scalars cannot hold (extract it as json or csv)',
    );
    expect(refusal(list(decimalOf(10, 2)), '["1.50","NaN"]')).toBe('has an element "NaN" that is NaN, which DECIMAL cannot hold');
    expect(refusal(list(INT32), '"{1,2}"')).toBe('is not an array');
  });
});
