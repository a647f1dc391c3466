import {
  Binary,
  BSON,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
  type Document,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { BSON_READ_OPTIONS, renderValue } from './mongodb-values.js';

/** A document as the driver hands it over: serialized to BSON, read back with the connector's options. */
const asDriverReturns = (doc: Document): Document => BSON.deserialize(BSON.serialize(doc), BSON_READ_OPTIONS);

/** The JSON text of one field after the BSON round trip. */
const rendered = (value: unknown): string => renderValue(asDriverReturns({ v: value }).v);

describe('MongoDB value mapping (docs/value-mapping.md)', () => {
  it.each<[string, unknown, string]>([
    ['ObjectId → 24-hex string', new ObjectId('65f0c0ffee0000000000abcd'), '"65f0c0ffee0000000000abcd"'],
    ['Date → ISO-8601 with Z and milliseconds', new Date('2026-03-01T12:00:00.250Z'), '"2026-03-01T12:00:00.250Z"'],
    ['Date at midnight', new Date('2026-03-01T00:00:00Z'), '"2026-03-01T00:00:00.000Z"'],
    ['Date before 1970', new Date('1969-07-20T20:17:40Z'), '"1969-07-20T20:17:40.000Z"'],
    ['Decimal128 → exact string', Decimal128.fromString('1234567890.12'), '"1234567890.12"'],
    ['Decimal128 keeps trailing zeros', Decimal128.fromString('10.50'), '"10.50"'],
    ['Decimal128 with 34 digits', Decimal128.fromString('1234567890123456789012345678901.234'), '"1234567890123456789012345678901.234"'],
    ['Decimal128 negative', Decimal128.fromString('-0.05'), '"-0.05"'],
    ['Decimal128 NaN', Decimal128.fromString('NaN'), '"NaN"'],
    ['Long max → integer with exact digits', Long.fromString('9223372036854775807'), '9223372036854775807'],
    ['Long min', Long.fromString('-9223372036854775808'), '-9223372036854775808'],
    ['Int32', new Int32(-2147483648), '-2147483648'],
    ['Double', new Double(0.1), '0.1'],
    ['Double with integral value', new Double(2), '2'],
    ['Double huge', new Double(1e300), '1e+300'],
    ['Double NaN → string', new Double(NaN), '"NaN"'],
    ['Double Infinity → string', new Double(Infinity), '"Infinity"'],
    ['Double -Infinity → string', new Double(-Infinity), '"-Infinity"'],
    ['Boolean true', true, 'true'],
    ['Boolean false', false, 'false'],
    [
      'String with quotes, backslash, newline, control char, non-ASCII',
      'a "b" \\ c\nd\u0001 ção 😀',
      '"a \\"b\\" \\\\ c\\nd\\u0001 ção 😀"',
    ],
    ['plain string', 'plain', '"plain"'],
    ['null', null, 'null'],
    ['Binary → base64', new Binary(Buffer.from([0, 255, 16])), '"AP8Q"'],
    ['Binary empty', new Binary(Buffer.alloc(0)), '""'],
    [
      'Binary UUID (subtype 4) → canonical UUID',
      new UUID('123e4567-e89b-12d3-a456-426614174000'),
      '"123e4567-e89b-12d3-a456-426614174000"',
    ],
    ['Binary subtype 3 (legacy UUID) → base64 of the stored bytes', new Binary(Buffer.alloc(16, 1), 3), '"AQEBAQEBAQEBAQEBAQEBAQ=="'],
    ['Binary subtype 4 of another length → base64', new Binary(Buffer.from([1, 2]), 4), '"AQI="'],
    ['Timestamp → {t, i} (unsigned)', new Timestamp({ t: 4294967295, i: 7 }), '{"t":4294967295,"i":7}'],
    ['Regular expression → /pattern/options', new BSONRegExp('^a"b.*$', 'im'), '"/^a\\"b.*$/im"'],
    ['MinKey', new MinKey(), '"MinKey"'],
    ['MaxKey', new MaxKey(), '"MaxKey"'],
    ['Code → its text', new Code('function () { return "x"; }'), '"function () { return \\"x\\"; }"'],
    ['Code with scope → its text', new Code('x + 1', { x: 1 }), '"x + 1"'],
    ['Symbol → its string', new BSONSymbol('sym'), '"sym"'],
    [
      'DBRef → {$ref, $id, $db}',
      new DBRef('users', new ObjectId('65f0c0ffee0000000000abcd'), 'other'),
      '{"$ref":"users","$id":"65f0c0ffee0000000000abcd","$db":"other"}',
    ],
  ])('%s', (_label, value, json) => {
    expect(rendered(value)).toBe(json);
  });

  it('hands over exact BSON classes with the connector options (what the mapping relies on)', () => {
    const doc = asDriverReturns({
      i: new Int32(1),
      d: new Double(1),
      l: Long.fromInt(1),
      b: new Binary(Buffer.from([1])),
      r: new BSONRegExp('a', ''),
    });
    expect(Object.values(doc).map((v) => (v as { _bsontype: string })._bsontype)).toEqual([
      'Int32',
      'Double',
      'Long',
      'Binary',
      'BSONRegExp',
    ]);
  });

  it('renders a BSON undefined and a missing value as null', () => {
    const doc = asDriverReturns({ u: undefined });
    expect(renderValue(doc.u)).toBe('null');
    expect(renderValue(undefined)).toBe('null');
  });

  it('renders a date outside the JS range as null rather than failing the read', () => {
    expect(renderValue(new Date(NaN))).toBe('null');
  });

  it('maps nested documents recursively, keys in document order', () => {
    const value = {
      z: new Int32(1),
      a: { id: new ObjectId('65f0c0ffee0000000000abcd'), at: new Date('2026-01-15T08:30:00Z'), amount: Decimal128.fromString('0.10') },
      m: 'x',
    };
    expect(rendered(value)).toBe('{"z":1,"a":{"id":"65f0c0ffee0000000000abcd","at":"2026-01-15T08:30:00.000Z","amount":"0.10"},"m":"x"}');
  });

  it('maps arrays recursively, with mixed element types, nulls and nested arrays', () => {
    const value = [
      new Int32(1),
      'two',
      null,
      Long.fromString('12345678901234567890'.slice(0, 19)),
      [new Double(1.5), { k: true }],
      new UUID('00000000-0000-4000-8000-000000000001'),
    ];
    expect(rendered(value)).toBe('[1,"two",null,1234567890123456789,[1.5,{"k":true}],"00000000-0000-4000-8000-000000000001"]');
  });

  it('escapes field names of nested documents', () => {
    expect(rendered({ 'we"ird\nkey': 1, ção: 2 })).toBe('{"we\\"ird\\nkey":1,"ção":2}');
  });

  it('produces valid JSON for a document holding every type', () => {
    const doc = asDriverReturns({
      o: new ObjectId(),
      d: new Date(),
      dec: Decimal128.fromString('1.5'),
      l: Long.fromString('-1'),
      ts: new Timestamp({ t: 1, i: 2 }),
      nested: { arr: [new MinKey(), new MaxKey(), new BSONSymbol('s'), new Code('c'), new BSONRegExp('x', 'i')] },
    });
    expect(() => JSON.parse(renderValue(doc))).not.toThrow();
  });

  it('renders values that were promoted anyway (plain numbers, bigint, Buffer, RegExp)', () => {
    expect(renderValue(42)).toBe('42');
    expect(renderValue(Number.NaN)).toBe('"NaN"');
    expect(renderValue(2n ** 64n)).toBe('18446744073709551616');
    expect(renderValue(Buffer.from([1, 2, 3]))).toBe('"AQID"');
    expect(renderValue(/a+b/gi)).toBe('"/a+b/gi"');
  });
});
