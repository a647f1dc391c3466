import { describe, expect, it } from 'vitest';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { columnEncoder, createBatchRenderer, encodeJson } from './postgres-value-encoders.js';
import { PgOid, type PostgresColumnType } from './postgres-types.js';
import { batchRenderingChecks, ndjsonFramingCheck } from '../testing/batch-rendering-checks.js';

const scalar = (typeOid: number, category = 'X'): PostgresColumnType => ({ typeOid, category, castType: 't' });
const array = (elementOid: number, delimiter = ','): PostgresColumnType => ({
  typeOid: 1,
  elementOid,
  elementDelimiter: delimiter,
  category: 'A',
  castType: 't[]',
});
const encode = (type: PostgresColumnType | null, text: string): string => columnEncoder(type)(text);

describe('PostgreSQL value encoders (server text → JSON text)', () => {
  it.each<[string, number, string, string]>([
    ['int2', PgOid.int2, '-32768', '-32768'],
    ['int4', PgOid.int4, '2147483647', '2147483647'],
    ['int8 beyond 2^53 keeps its digits', PgOid.int8, '9007199254740993', '9007199254740993'],
    ['int8 minimum', PgOid.int8, '-9223372036854775808', '-9223372036854775808'],
    ['oid', PgOid.oid, '4294967295', '4294967295'],
    ['numeric keeps its exact text', PgOid.numeric, '100.50', '"100.50"'],
    [
      'numeric with 28 integer digits',
      PgOid.numeric,
      '1234567890123456789012345678.0123456789',
      '"1234567890123456789012345678.0123456789"',
    ],
    ['numeric NaN', PgOid.numeric, 'NaN', '"NaN"'],
    ['numeric Infinity', PgOid.numeric, '-Infinity', '"-Infinity"'],
    ['money read as numeric', PgOid.money, '12.50', '"12.50"'],
    ['float8', PgOid.float8, '0.1', '0.1'],
    ['float8 exponent form is valid JSON', PgOid.float8, '1e+300', '1e+300'],
    ['float4 negative exponent', PgOid.float4, '1e-07', '1e-07'],
    ['float NaN', PgOid.float8, 'NaN', '"NaN"'],
    ['float Infinity', PgOid.float4, 'Infinity', '"Infinity"'],
    ['float -Infinity', PgOid.float8, '-Infinity', '"-Infinity"'],
    ['bool true', PgOid.bool, 't', 'true'],
    ['bool false', PgOid.bool, 'f', 'false'],
    ['date', PgOid.date, '2024-02-29', '"2024-02-29"'],
    ['date infinity', PgOid.date, 'infinity', '"infinity"'],
    ['date BC passes through', PgOid.date, '0044-03-15 BC', '"0044-03-15 BC"'],
    ['timestamp with microseconds', PgOid.timestamp, '2024-01-15 10:20:30.123456', '"2024-01-15T10:20:30.123456"'],
    ['timestamp without fraction', PgOid.timestamp, '2024-01-15 10:20:30', '"2024-01-15T10:20:30"'],
    ['timestamp year 10000', PgOid.timestamp, '10000-01-01 00:00:00', '"10000-01-01T00:00:00"'],
    ['timestamp -infinity', PgOid.timestamp, '-infinity', '"-infinity"'],
    ['timestamp BC passes through', PgOid.timestamp, '0044-03-15 10:00:00 BC', '"0044-03-15 10:00:00 BC"'],
    ['timestamptz in the UTC session', PgOid.timestamptz, '2024-01-15 08:20:30.123456+00', '"2024-01-15T08:20:30.123456Z"'],
    ['timestamptz with another offset', PgOid.timestamptz, '2024-01-15 08:20:30+05:30', '"2024-01-15T08:20:30+05:30"'],
    ['timestamptz hour-only offset', PgOid.timestamptz, '2024-01-15 08:20:30-03', '"2024-01-15T08:20:30-03:00"'],
    ['timestamptz infinity', PgOid.timestamptz, 'infinity', '"infinity"'],
    ['timestamptz BC passes through', PgOid.timestamptz, '0044-03-15 10:00:00+00 BC', '"0044-03-15 10:00:00+00 BC"'],
    ['time', PgOid.time, '23:59:59.999999', '"23:59:59.999999"'],
    ['timetz hour offset', PgOid.timetz, '10:20:30.123456+02', '"10:20:30.123456+02:00"'],
    ['timetz minute offset', PgOid.timetz, '10:20:30+05:30', '"10:20:30+05:30"'],
    ['timetz negative offset', PgOid.timetz, '10:20:30-08', '"10:20:30-08:00"'],
    ['interval in iso_8601 style', PgOid.interval, 'P1Y2M3DT4H5M6S', '"P1Y2M3DT4H5M6S"'],
    ['uuid', PgOid.uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"'],
    ['bytea hex → base64', PgOid.bytea, '\\x00ff10', '"AP8Q"'],
    ['empty bytea', PgOid.bytea, '\\x', '""'],
    [
      'jsonb compacted',
      PgOid.jsonb,
      '{"n": [1, 2], "s": "a b", "big": 12345678901234567890}',
      '{"n":[1,2],"s":"a b","big":12345678901234567890}',
    ],
    ['json with newlines and tabs', PgOid.json, '{ "a" :\n\t[ 1 ,2 ] }', '{"a":[1,2]}'],
    [
      'json string with escaped quote and spaces kept',
      PgOid.json,
      '{"k": "say \\"a b\\" \\\\", "x": 1}',
      '{"k":"say \\"a b\\" \\\\","x":1}',
    ],
    ['json scalar', PgOid.jsonb, '"x y"', '"x y"'],
    [
      'text with quotes, backslash, newline, tab, control, emoji, accents',
      PgOid.text,
      'a"b\\c\nd\te\u0001 😀 ção',
      JSON.stringify('a"b\\c\nd\te\u0001 😀 ção'),
    ],
    ['varchar', PgOid.varchar, 'plain', '"plain"'],
    ['text with a unit separator only', PgOid.text, 'a\u001fb', '"a\\u001fb"'],
    ['text with DEL and U+2028 (valid in JSON strings)', PgOid.text, 'a\u007f\u2028b', '"a\u007f\u2028b"'],
    ['empty text', PgOid.text, '', '""'],
    ['bpchar keeps padding', PgOid.bpchar, 'ab   ', '"ab   "'],
    ['xml is a string', PgOid.xml, '<a x="1"/>', '"<a x=\\"1\\"/>"'],
    ['unknown type (inet) is a string', 869, '192.168.0.1/24', '"192.168.0.1/24"'],
    ['enum (dynamic OID) is a string', 16500, 'happy', '"happy"'],
  ])('%s', (_label, oid, text, json) => {
    expect(encode(scalar(oid), text)).toBe(json);
  });

  it('encodes arrays with the element encoder, including NULL elements and quoting', () => {
    expect(encode(array(PgOid.int4), '{1,NULL,3}')).toBe('[1,null,3]');
    expect(encode(array(PgOid.text), '{"a,b","c\\"d",NULL,"NULL",""}')).toBe('["a,b","c\\"d",null,"NULL",""]');
    expect(encode(array(PgOid.numeric), '{1.50,NULL,NaN}')).toBe('["1.50",null,"NaN"]');
    expect(encode(array(PgOid.int4), '{{1,NULL},{3,4}}')).toBe('[[1,null],[3,4]]');
    expect(encode(array(PgOid.int4), '[0:1]={7,8}')).toBe('[7,8]');
    expect(encode(array(PgOid.int4), '{}')).toBe('[]');
    expect(encode(array(PgOid.bool), '{t,f,NULL}')).toBe('[true,false,null]');
    expect(encode(array(PgOid.float8), '{1.5,NaN,-Infinity}')).toBe('[1.5,"NaN","-Infinity"]');
    expect(encode(array(PgOid.timestamptz), '{"2024-01-15 10:20:30+00",NULL}')).toBe('["2024-01-15T10:20:30Z",null]');
    expect(encode(array(PgOid.uuid), '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}')).toBe('["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]');
    expect(encode(array(PgOid.jsonb), '{"{\\"k\\": [1, 2]}"}')).toBe('[{"k":[1,2]}]');
    expect(encode(array(PgOid.bytea), '{"\\\\x01ff"}')).toBe('["Af8="]');
    expect(encode(array(PgOid.int8), '{9007199254740993}')).toBe('[9007199254740993]');
  });

  it('reads money arrays as numeric arrays', () => {
    expect(encode({ typeOid: 791, elementOid: PgOid.money, category: 'A', castType: 'money[]' }, '{12.50,NULL}')).toBe('["12.50",null]');
  });

  it('keeps non-brace vector types and non-comma delimited arrays as strings', () => {
    expect(encode(array(PgOid.int2), '1 2 3')).toBe('"1 2 3"');
    expect(encode(array(603, ';'), '{(3,4),(1,2)}')).toBe('"{(3,4),(1,2)}"');
  });

  it('renders a column without engine type as a string', () => {
    expect(encode(null, '42')).toBe('"42"');
  });

  it('compacts JSON without touching numbers or string contents', () => {
    expect(encodeJson('[ 1.0e+2 , -0.000 , 123456789012345678901234567890 ]')).toBe('[1.0e+2,-0.000,123456789012345678901234567890]');
    expect(encodeJson('{"a\\\\": " x "}')).toBe('{"a\\\\":" x "}');
    expect(encodeJson('{"a":1}')).toBe('{"a":1}');
  });
});

describe('batch rendering', () => {
  const columns: ColumnInfo[] = [
    { name: 'id', dataType: 'bigint', engineType: scalar(PgOid.int8) },
    { name: 'Na"me', dataType: 'text', engineType: scalar(PgOid.text) },
    { name: 'amount', dataType: 'numeric', engineType: scalar(PgOid.numeric) },
  ];

  batchRenderingChecks(createBatchRenderer, columns, { amount: '1.10', halfAmount: '3.5', emptyRow: [] });

  ndjsonFramingCheck((frame, none) => createBatchRenderer(none ? [] : columns, frame));
});
