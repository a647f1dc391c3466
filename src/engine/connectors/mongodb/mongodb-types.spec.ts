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
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { bsonTypeOf, isSubDocument, mongoFieldType } from './mongodb-types.js';
import { BSON_READ_OPTIONS } from './mongodb-values.js';

const asDriverReturns = (value: unknown): unknown => BSON.deserialize(BSON.serialize({ v: value }), BSON_READ_OPTIONS).v;

describe('BSON type names of driver values', () => {
  it.each<[string, unknown, string]>([
    ['ObjectId', new ObjectId(), 'objectId'],
    ['Decimal128', Decimal128.fromString('1'), 'decimal'],
    ['Long', Long.fromInt(1), 'long'],
    ['Int32', new Int32(1), 'int'],
    ['Double', new Double(1), 'double'],
    ['Binary', new Binary(Buffer.from([1])), 'binData'],
    ['UUID (binData subtype 4)', new UUID(), 'uuid'],
    ['Timestamp', new Timestamp({ t: 1, i: 1 }), 'timestamp'],
    ['regular expression', new BSONRegExp('a', 'i'), 'regex'],
    ['MinKey', new MinKey(), 'minKey'],
    ['MaxKey', new MaxKey(), 'maxKey'],
    ['Code', new Code('x'), 'javascript'],
    ['Symbol', new BSONSymbol('s'), 'symbol'],
    ['DBRef (a document by convention)', new DBRef('c', new ObjectId()), 'object'],
    ['Date', new Date(0), 'date'],
    ['string', 's', 'string'],
    ['boolean', false, 'bool'],
    ['null', null, 'null'],
    ['array', [1], 'array'],
    ['document', { a: 1 }, 'object'],
  ])('%s → %s', (_label, value, type) => {
    expect(bsonTypeOf(asDriverReturns(value))).toBe(type);
  });

  it('only plain documents are sub-documents (paths go through them)', () => {
    expect(isSubDocument(asDriverReturns({ a: 1 }))).toBe(true);
    for (const value of [new ObjectId(), new Date(), [1], 'x', null, new DBRef('c', new ObjectId()), Buffer.from([1])]) {
      expect(isSubDocument(asDriverReturns(value))).toBe(false);
    }
  });

  it('reads engineType back only when it has the MongoDB shape', () => {
    expect(mongoFieldType({ name: 'a', dataType: 'int', engineType: { bsonTypes: ['int'] } })).toEqual({ bsonTypes: ['int'] });
    expect(mongoFieldType({ name: 'a', dataType: 'int', engineType: { typeOid: 23 } })).toBeNull();
    expect(mongoFieldType({ name: 'a', dataType: 'int' })).toBeNull();
  });
});
