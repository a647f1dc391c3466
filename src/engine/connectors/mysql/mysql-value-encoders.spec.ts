import { describe, expect, it } from 'vitest';
import { float32Text } from '../shared/json-text.js';
import { type ColumnInfo, JSON_ROW_FRAME } from '../shared/engine-connector.js';
import { expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import { describeColumnType, type MySqlValueKind } from './mysql-types.js';
import { createBatchRenderer, encoderFor, kindsForResult } from './mysql-value-encoders.js';
import { batchRenderingChecks } from '../testing/batch-rendering-checks.js';

const encode = (kind: MySqlValueKind, value: string | number | Buffer): string => encoderFor(kind)(value);

// Each input is what mysql2 delivers with the connector's options for that column type.
describe('MySQL value encoders (mysql2 values → JSON text)', () => {
  it.each<[string, MySqlValueKind, string | number | Buffer, string]>([
    ['TINYINT', 'integer', -128, '-128'],
    ['INT UNSIGNED maximum', 'integer', 4294967295, '4294967295'],
    ['MEDIUMINT', 'integer', -8388608, '-8388608'],
    ['BIGINT maximum, as digits', 'integer', '9223372036854775807', '9223372036854775807'],
    ['BIGINT minimum', 'integer', '-9223372036854775808', '-9223372036854775808'],
    ['BIGINT UNSIGNED maximum', 'integer', '18446744073709551615', '18446744073709551615'],
    ['YEAR', 'integer', 2024, '2024'],
    ['TINYINT(1) 1', 'boolean', 1, 'true'],
    ['TINYINT(1) 0', 'boolean', 0, 'false'],
    ['TINYINT(1) other non-zero is true (MySQL IS TRUE)', 'boolean', -5, 'true'],
    ['DECIMAL exact text', 'decimal', '100.50', '"100.50"'],
    ['DECIMAL(38,10)', 'decimal', '1234567890123456789012345678.0123456789', '"1234567890123456789012345678.0123456789"'],
    ['DECIMAL negative', 'decimal', '-0.05', '"-0.05"'],
    ['DOUBLE server text', 'double', '0.30000000000000004', '0.30000000000000004'],
    ['DOUBLE exponent text', 'double', '9.007199254740992e15', '9.007199254740992e15'],
    ['DOUBLE large', 'double', '1e300', '1e300'],
    ['DOUBLE small negative', 'double', '-0.00000025', '-0.00000025'],
    ['DOUBLE that is not a number stays a string', 'double', 'inf', '"inf"'],
    ['FLOAT 0.1 (read as its double)', 'float', '0.10000000149011612', '0.1'],
    ['FLOAT 1234567 (the server would print 1234570)', 'float', '1234567', '1234567'],
    ['FLOAT 16777216', 'float', '16777216', '16777216'],
    ['FLOAT near its maximum', 'float', '3.402820018375656e38', '3.40282e+38'],
    ['FLOAT smallest normal', 'float', '1.1754943508222875e-38', '1.1754944e-38'],
    ['FLOAT 0.3', 'float', '0.30000001192092896', '0.3'],
    ['DATE', 'date', '2024-02-29', '"2024-02-29"'],
    ['zero DATE is null', 'date', '0000-00-00', 'null'],
    ['partly zero DATE keeps the server text', 'date', '2024-00-15', '"2024-00-15"'],
    ['DATETIME(6)', 'datetime', '2024-01-15 10:20:30.123456', '"2024-01-15T10:20:30.123456"'],
    ['DATETIME without fraction', 'datetime', '2024-01-15 10:20:30', '"2024-01-15T10:20:30"'],
    ['DATETIME(3) keeps its precision', 'datetime', '2024-01-15 10:20:30.500', '"2024-01-15T10:20:30.500"'],
    ['zero DATETIME is null', 'datetime', '0000-00-00 00:00:00', 'null'],
    ['TIMESTAMP(6) in the UTC session', 'timestamp', '2024-01-15 08:20:30.123456', '"2024-01-15T08:20:30.123456Z"'],
    ['zero TIMESTAMP is null', 'timestamp', '0000-00-00 00:00:00.000000', 'null'],
    ['TIME(6)', 'time', '23:59:59.999999', '"23:59:59.999999"'],
    ['TIME negative', 'time', '-838:59:59.000000', '"-838:59:59.000000"'],
    ['TIME above 24 h', 'time', '100:00:00', '"100:00:00"'],
    ['BIT(1) set', 'bit-boolean', Buffer.from([1]), 'true'],
    ['BIT(1) clear', 'bit-boolean', Buffer.from([0]), 'false'],
    ['BIT(8)', 'bit', Buffer.from([0x81]), '129'],
    ['BIT(16)', 'bit', Buffer.from([0x01, 0x00]), '256'],
    ['BIT(64) all ones keeps every digit', 'bit', Buffer.alloc(8, 0xff), '18446744073709551615'],
    [
      'JSON compacted, big number kept',
      'json',
      '{"big": 12345678901234567890, "s": "a b", "n": [1, 2.50]}',
      '{"big":12345678901234567890,"s":"a b","n":[1,2.50]}',
    ],
    ['MariaDB JSON with newlines', 'json-checked', '{ "a" :\n\t[ 1 ,2 ] }', '{"a":[1,2]}'],
    ['MariaDB JSON scalar', 'json-checked', '"x y"', '"x y"'],
    ['MariaDB JSON column holding invalid text', 'json-checked', 'not json', '"not json"'],
    ['BLOB with 0x00 and 0xff → base64', 'binary', Buffer.from([0x00, 0xff, 0x10]), '"AP8Q"'],
    ['empty VARBINARY', 'binary', Buffer.alloc(0), '""'],
    [
      'text with quotes, backslash, newline, tab, control, emoji, accents',
      'text',
      'a"b\\c\nd\te\u0001 😀 ção',
      JSON.stringify('a"b\\c\nd\te\u0001 😀 ção'),
    ],
    ['ENUM', 'text', 'happy', '"happy"'],
    ['SET', 'text', 'a,c', '"a,c"'],
    ['UUID', 'text', '123e4567-e89b-12d3-a456-426655440000', '"123e4567-e89b-12d3-a456-426655440000"'],
    ['empty string', 'text', '', '""'],
    ['POINT as WKT', 'spatial', 'POINT(1 2)', '"POINT(1 2)"'],
    ['unknown type, string', 'other', 'x"y', '"x\\"y"'],
    ['unknown type, number', 'other', 1.5, '1.5'],
    ['unknown type, bytes', 'other', Buffer.from([0xff]), '"/w=="'],
  ])('%s', (_label, kind, value, json) => {
    expect(encode(kind, value)).toBe(json);
  });

  it('falls back to the value’s own shape when it is not what the column type promised', () => {
    expect(encode('integer', Buffer.from([1]))).toBe('"AQ=="');
    expect(encode('text', Buffer.from('hi'))).toBe('"aGk="');
    expect(encode('decimal', 2.5)).toBe('"2.5"');
    expect(encode('double', 0.5)).toBe('0.5');
    expect(encode('date', 5)).toBe('5');
    expect(encode('binary', 'hi')).toBe('"aGk="');
  });

  it('finds the shortest text that reads back as the same single-precision value', () => {
    for (const value of [0.1, 1 / 3, 1e-45, 3.4028234663852886e38, 16777217, -2.5, 0]) {
      const text = float32Text(Math.fround(value));
      expect(Math.fround(Number(text))).toBe(Math.fround(value));
      expect(text.replace(/^-|\.|e.*$/g, '').replace(/^0+/, '').length).toBeLessThanOrEqual(9);
    }
    expect(float32Text(Number.NaN)).toBe('"NaN"');
  });
});

describe('batch rendering', () => {
  const col = (name: string, dataType: string, columnType = dataType): ColumnInfo => ({
    name,
    dataType: columnType,
    engineType: describeColumnType({ dataType, columnType, numericPrecision: null, numericScale: null, jsonChecked: false }),
  });
  const columns = [col('id', 'bigint', 'bigint(20)'), col('Na"me', 'varchar', 'varchar(10)'), col('amount', 'decimal', 'decimal(10,2)')];
  const text = (batches: { json: Buffer }[]) => batches.map((batch) => batch.json.toString('utf8')).join(',');

  batchRenderingChecks(createBatchRenderer, columns, { amount: '1.10', halfAmount: '3.5', emptyRow: [1] });

  it('embeds text columns the server labels json (MariaDB JSON through a view)', () => {
    const doc = col('doc', 'longtext');
    const kinds = kindsForResult([columns[0], doc], [{}, { extendedFormat: 'json' }]);
    expect(kinds).toEqual(['integer', 'json-checked']);
    expect(text(createBatchRenderer([columns[0], doc], kinds)([['1', '{"a": 1}']]))).toBe('{"id":1,"doc":{"a":1}}');
    expect(kindsForResult([doc], [])).toEqual(['text']);
  });

  it('frames rows (the fallback for parsed rows) as NDJSON lines holding each row as the JSON frame renders it', () => {
    const doc = col('doc', 'longtext');
    const projection = [...columns, doc];
    const kinds = kindsForResult(projection, [{}, {}, {}, { extendedFormat: 'json' }]);
    const rows = [
      ['9007199254740993', 'line\none "quoted" \\ \u0001', '1.10', '{"a": "x\\ny"}'],
      ['2', '', null, null],
      ...Array.from({ length: 2000 }, (_, i) => [String(i + 3), 'x'.repeat(100) + 'é\n', `${i}.5`, '[1, 2]']),
    ];
    const json = createBatchRenderer(projection, kinds)(rows);
    expect(text(createBatchRenderer(projection, kinds, JSON_ROW_FRAME)(rows))).toBe(text(json));
    const framed = createBatchRenderer(projection, kinds, ndjsonFrame('d', 't'))(rows);
    expect(framed.length).toBeGreaterThan(2);
    expectNdjsonLike(framed, json, 'd', 't');
    expectNdjsonLike(createBatchRenderer([], [], ndjsonFrame('d', 't'))([[], []]), createBatchRenderer([])([[], []]), 'd', 't');
  });
});
