import { describe, expect, it } from 'vitest';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { describeColumnType, type OracleColumnFacts } from './oracle-types.js';
import { columnEncoder, createBatchRenderer, encodeAny, normalizeNumberText } from './oracle-value-encoders.js';
import { batchRenderingChecks, ndjsonFramingCheck } from '../testing/batch-rendering-checks.js';

const facts = (
  dataType: string,
  precision: number | null = null,
  scale: number | null = null,
  typeOwner: string | null = null,
): OracleColumnFacts => ({
  dataType,
  precision,
  scale,
  charLength: null,
  typeOwner,
});

const encode = (f: OracleColumnFacts, value: unknown): string => columnEncoder(describeColumnType(f))(value);

const NUMBER_12_2 = facts('NUMBER', 12, 2);
const INTEGER = facts('NUMBER', null, 0);

// Each input is what node-oracledb thin delivers with the connector's fetch settings and projections.
describe('Oracle value encoders (driver values → JSON text)', () => {
  it.each<[string, OracleColumnFacts, unknown, string]>([
    ['NUMBER(10) as a JSON integer', facts('NUMBER', 10, 0), '42', '42'],
    [
      'INTEGER (NUMBER scale 0) keeps 38 digits',
      INTEGER,
      '12345678901234567890123456789012345678',
      '12345678901234567890123456789012345678',
    ],
    ['NUMBER(19) beyond 2^53', facts('NUMBER', 19, 0), '-9223372036854775808', '-9223372036854775808'],
    ['NUMBER(5,-2) (negative scale) is an integer', facts('NUMBER', 5, -2), '12300', '12300'],
    ['NUMBER(1) used as a flag stays a number', facts('NUMBER', 1, 0), '1', '1'],
    ['integer column holding a fraction (defensive) → exact string', INTEGER, '.5', '"0.5"'],
    ['NUMBER(12,2) padded to its scale', NUMBER_12_2, '10.5', '"10.50"'],
    ['NUMBER(12,2) zero', NUMBER_12_2, '0', '"0.00"'],
    ['NUMBER(12,2) whole value', NUMBER_12_2, '1234567890', '"1234567890.00"'],
    ['NUMBER(12,2) full scale', NUMBER_12_2, '1234567890.12', '"1234567890.12"'],
    ['NUMBER(12,2) negative below one', NUMBER_12_2, '-.05', '"-0.05"'],
    [
      'NUMBER(38,10) exact digits',
      facts('NUMBER', 38, 10),
      '1234567890123456789012345678.0123456789',
      '"1234567890123456789012345678.0123456789"',
    ],
    ['NUMBER(2,5) (scale above precision)', facts('NUMBER', 2, 5), '.00012', '"0.00012"'],
    [
      'NUMBER without precision: exact text, no padding',
      facts('NUMBER'),
      '3.14159265358979323846264338327950288',
      '"3.14159265358979323846264338327950288"',
    ],
    ['NUMBER without precision, below one', facts('NUMBER'), '.1', '"0.1"'],
    ['NUMBER without precision, huge', facts('NUMBER'), '1' + '0'.repeat(125), `"1${'0'.repeat(125)}"`],
    ['NUMBER -1e126 sentinel stays text', facts('NUMBER'), '-1e126', '"-1e126"'],
    ['FLOAT(126) is a decimal NUMBER: exact string', facts('FLOAT', 126), '0.1', '"0.1"'],
    ['BINARY_DOUBLE', facts('BINARY_DOUBLE'), 0.30000000000000004, '0.30000000000000004'],
    ['BINARY_DOUBLE large', facts('BINARY_DOUBLE'), 1e300, '1e+300'],
    ['BINARY_DOUBLE NaN', facts('BINARY_DOUBLE'), Number.NaN, '"NaN"'],
    ['BINARY_DOUBLE -Infinity', facts('BINARY_DOUBLE'), Number.NEGATIVE_INFINITY, '"-Infinity"'],
    ['BINARY_FLOAT 0.1 (read as its double)', facts('BINARY_FLOAT'), Math.fround(0.1), '0.1'],
    ['BINARY_FLOAT Infinity', facts('BINARY_FLOAT'), Number.POSITIVE_INFINITY, '"Infinity"'],
    ['DATE (always with a time of day)', facts('DATE'), ' 2024-02-29T13:45:00', '"2024-02-29T13:45:00"'],
    ['DATE before Christ keeps the sign', facts('DATE'), '-0044-03-15T00:00:00', '"-0044-03-15T00:00:00"'],
    ['DATE with an explicit + sign', facts('DATE'), '+2024-02-29T13:45:00', '"2024-02-29T13:45:00"'],
    ['TIMESTAMP(6)', facts('TIMESTAMP(6)', null, 6), ' 2024-01-15T10:20:30.123456', '"2024-01-15T10:20:30.123456"'],
    ['TIMESTAMP(3)', facts('TIMESTAMP(3)', null, 3), ' 2026-03-01T12:00:00.250', '"2026-03-01T12:00:00.250"'],
    ['TIMESTAMP(0)', facts('TIMESTAMP(0)', null, 0), ' 2026-03-01T12:00:00', '"2026-03-01T12:00:00"'],
    [
      'TIMESTAMP(9) WITH TIME ZONE keeps its offset',
      facts('TIMESTAMP(9) WITH TIME ZONE', null, 9),
      ' 2024-01-15T10:20:30.123456789+05:30',
      '"2024-01-15T10:20:30.123456789+05:30"',
    ],
    [
      'TIMESTAMP WITH TIME ZONE at UTC → Z',
      facts('TIMESTAMP(6) WITH TIME ZONE', null, 6),
      ' 2024-01-15T10:20:30.000000+00:00',
      '"2024-01-15T10:20:30.000000Z"',
    ],
    [
      'TIMESTAMP WITH TIME ZONE negative offset',
      facts('TIMESTAMP(0) WITH TIME ZONE', null, 0),
      ' 2024-01-15T10:20:30-08:00',
      '"2024-01-15T10:20:30-08:00"',
    ],
    [
      'TIMESTAMP WITH LOCAL TIME ZONE (UTC session) → Z',
      facts('TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6),
      ' 2024-01-15T08:20:30.500000',
      '"2024-01-15T08:20:30.500000Z"',
    ],
    ['INTERVAL YEAR TO MONTH', facts('INTERVAL YEAR(2) TO MONTH'), { years: 1, months: 2 }, '"P1Y2M"'],
    ['INTERVAL YEAR TO MONTH negative', facts('INTERVAL YEAR(2) TO MONTH'), { years: 0, months: -3 }, '"-P3M"'],
    ['INTERVAL YEAR TO MONTH whole years', facts('INTERVAL YEAR(2) TO MONTH'), { years: 5, months: 0 }, '"P5Y"'],
    ['INTERVAL YEAR TO MONTH zero', facts('INTERVAL YEAR(2) TO MONTH'), { years: 0, months: 0 }, '"P0M"'],
    [
      'INTERVAL DAY TO SECOND',
      facts('INTERVAL DAY(2) TO SECOND(6)'),
      { days: 1, hours: 2, minutes: 3, seconds: 4, fseconds: 500_000_000 },
      '"P1DT2H3M4.5S"',
    ],
    [
      'INTERVAL DAY TO SECOND microsecond, negative',
      facts('INTERVAL DAY(2) TO SECOND(6)'),
      { days: 0, hours: 0, minutes: 0, seconds: 0, fseconds: -1000 },
      '"-PT0.000001S"',
    ],
    [
      'INTERVAL DAY TO SECOND days only',
      facts('INTERVAL DAY(2) TO SECOND(6)'),
      { days: -3, hours: 0, minutes: 0, seconds: 0, fseconds: 0 },
      '"-P3D"',
    ],
    [
      'INTERVAL DAY TO SECOND zero',
      facts('INTERVAL DAY(2) TO SECOND(6)'),
      { days: 0, hours: 0, minutes: 0, seconds: 0, fseconds: 0 },
      '"PT0S"',
    ],
    [
      'VARCHAR2 with quotes, backslash, controls, emoji, accents',
      facts('VARCHAR2'),
      'a"b\\c\nd\te\u0001 😀 ção',
      JSON.stringify('a"b\\c\nd\te\u0001 😀 ção'),
    ],
    ['CHAR keeps its blank padding', facts('CHAR'), 'ab   ', '"ab   "'],
    ['NVARCHAR2', facts('NVARCHAR2'), '日本語', '"日本語"'],
    ['CLOB fetched as a string', facts('CLOB'), 'x'.repeat(5) + '\u2028', JSON.stringify('xxxxx\u2028')],
    ['NCLOB', facts('NCLOB'), 'ção', '"ção"'],
    ['LONG', facts('LONG'), 'old', '"old"'],
    ['text that looks like JSON stays a string', facts('VARCHAR2'), '{"a":1}', '"{\\"a\\":1}"'],
    ['RAW → base64', facts('RAW'), Buffer.from([0x00, 0xff, 0x10]), '"AP8Q"'],
    ['BLOB → base64', facts('BLOB'), Buffer.from('hello'), '"aGVsbG8="'],
    ['empty BLOB', facts('BLOB'), Buffer.alloc(0), '""'],
    ['LONG RAW → base64', facts('LONG RAW'), Buffer.from([1]), '"AQ=="'],
    ['BOOLEAN true', facts('BOOLEAN'), true, 'true'],
    ['BOOLEAN false', facts('BOOLEAN'), false, 'false'],
    [
      'JSON embedded, compacted, big number kept',
      facts('JSON'),
      '{"big": 12345678901234567890, "s": "a b", "n": [1, 2.50]}',
      '{"big":12345678901234567890,"s":"a b","n":[1,2.50]}',
    ],
    ['JSON scalar', facts('JSON'), '"x"', '"x"'],
    ['ROWID', facts('ROWID'), 'AAAR3sAAEAAAACXAAA', '"AAAR3sAAEAAAACXAAA"'],
    ['UROWID', facts('UROWID'), '*BAMAAJwCwQL+', '"*BAMAAJwCwQL+"'],
    ['XMLTYPE as its text', facts('XMLTYPE', null, null, 'SYS'), '<a>1</a>', '"<a>1</a>"'],
    ['VECTOR FLOAT32', facts('VECTOR'), new Float32Array([0.1, -2.5, 3]), '[0.1,-2.5,3]'],
    ['VECTOR FLOAT64', facts('VECTOR'), new Float64Array([0.1, 1e300]), '[0.1,1e+300]'],
    ['VECTOR INT8', facts('VECTOR'), new Int8Array([-128, 127]), '[-128,127]'],
    [
      'sparse VECTOR',
      facts('VECTOR'),
      { numDimensions: 10, indices: new Uint32Array([1, 7]), values: new Float32Array([0.5, 2]) },
      '{"numDimensions":10,"indices":[1,7],"values":[0.5,2]}',
    ],
    [
      'object type (DbObject.toJSON)',
      facts('SDO_POINT_TYPE', null, null, 'MDSYS'),
      { toJSON: () => ({ X: 1, Y: 2, Z: null }) },
      '{"X":1,"Y":2,"Z":null}',
    ],
  ])('%s', (_label, f, value, json) => {
    const text = encode(f, value);
    expect(text).toBe(json);
    // Every rendering is valid JSON on its own.
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it('normalises the driver’s NUMBER text', () => {
    expect(normalizeNumberText('.5')).toBe('0.5');
    expect(normalizeNumberText('-.5')).toBe('-0.5');
    expect(normalizeNumberText('12.5')).toBe('12.5');
    expect(normalizeNumberText('-3')).toBe('-3');
  });

  it('falls back to the value’s own shape when it is not what the column type promised', () => {
    expect(encode(INTEGER, 7)).toBe('7');
    expect(encode(NUMBER_12_2, Buffer.from([1]))).toBe('"AQ=="');
    expect(encode(facts('DATE'), new Date('2024-01-01T00:00:00Z'))).toBe('"2024-01-01T00:00:00.000Z"');
    expect(encode(facts('VARCHAR2'), 5)).toBe('5');
    expect(encode(facts('BOOLEAN'), 'Y')).toBe('"Y"');
    expect(encode(facts('INTERVAL YEAR(2) TO MONTH'), 'x')).toBe('"x"');
    expect(encodeAny(10n)).toBe('10');
    expect(encodeAny(Symbol('s'))).toBe('"Symbol(s)"');
    expect(columnEncoder(null)('t')).toBe('"t"');
  });
});

describe('batch rendering', () => {
  const col = (name: string, f: OracleColumnFacts): ColumnInfo => ({ name, dataType: f.dataType, engineType: describeColumnType(f) });
  const columns = [col('ID', facts('NUMBER', 10, 0)), col('NA"ME', facts('VARCHAR2')), col('AMOUNT', NUMBER_12_2)];

  batchRenderingChecks(createBatchRenderer, columns, { amount: '1.1', halfAmount: '3.50', emptyRow: [1] });

  ndjsonFramingCheck((frame, none) => createBatchRenderer(none ? [] : columns, frame));
});
