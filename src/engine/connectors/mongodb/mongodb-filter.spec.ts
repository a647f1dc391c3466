import { BSON, Decimal128, Long, ObjectId, UUID } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { buildMongoFilter, likeToRegex, parseIsoDate } from './mongodb-filter.js';
import type { BsonTypeName } from './mongodb-types.js';

const field = (name: string, ...bsonTypes: BsonTypeName[]): ColumnInfo => ({
  name,
  dataType: bsonTypes.join('|'),
  engineType: { bsonTypes },
});

const COLUMNS = [
  field('_id', 'objectId'),
  field('qty', 'int'),
  field('name', 'string'),
  field('note', 'string', 'null'),
  field('amount', 'decimal'),
  field('big', 'long'),
  field('score', 'double', 'int'),
  field('active', 'bool'),
  field('day', 'date'),
  field('mixed', 'date', 'string'),
  field('uid', 'uuid'),
  field('address.city', 'string'),
];

const query = (filters: Record<string, FilterCondition>) => buildMongoFilter(filters, COLUMNS);

describe('MongoDB filter translation: operators', () => {
  it.each<[string, Record<string, FilterCondition>, unknown]>([
    ['eq one value → $eq', { name: { eq: ['beta'] } }, { name: { $eq: 'beta' } }],
    ['eq several values → $in', { qty: { eq: [10, 40] } }, { qty: { $in: [10, 40] } }],
    ['eq [null] → null or missing', { note: { eq: [null] } }, { note: { $eq: null } }],
    ['eq with null in the list → $in with null', { qty: { eq: [1, null] } }, { qty: { $in: [1, null] } }],
    ['in', { name: { in: ['alpha', 'delta'] } }, { name: { $in: ['alpha', 'delta'] } }],
    ['in one value → $eq', { name: { in: ['alpha'] } }, { name: { $eq: 'alpha' } }],
    ['in [null] only → null or missing', { name: { in: [null] } }, { name: { $eq: null } }],
    ['ne one value → $nin with null (NULL never matches <>)', { qty: { ne: [0] } }, { qty: { $nin: [0, null] } }],
    ['ne [null] → exists and not null', { note: { ne: [null] } }, { note: { $ne: null } }],
    ['ne several → NOT IN', { qty: { ne: [1, 2] } }, { qty: { $nin: [1, 2, null] } }],
    ['nin', { name: { nin: ['alpha', 'delta'] } }, { name: { $nin: ['alpha', 'delta', null] } }],
    ['nin with null → neither', { name: { nin: ['a', null] } }, { name: { $nin: ['a', null] } }],
    ['gt', { qty: { gt: [10] } }, { qty: { $gt: 10 } }],
    ['gte', { qty: { gte: [10] } }, { qty: { $gte: 10 } }],
    ['lt', { qty: { lt: [40] } }, { qty: { $lt: 40 } }],
    ['lte', { qty: { lte: [40] } }, { qty: { $lte: 40 } }],
    ['between, inclusive', { qty: { between: [10, 40] } }, { qty: { $gte: 10, $lte: 40 } }],
    ['gt null matches nothing (SQL comparison with NULL)', { qty: { gt: [null] } }, { qty: { $in: [] } }],
    ['between with a null bound matches nothing', { qty: { between: [1, null] } }, { qty: { $in: [] } }],
    ['like → anchored, case-sensitive regex', { name: { like: ['%ta'] } }, { name: { $regex: '^.*ta$(?!\\n)', $options: 's' } }],
    ['like [null] matches nothing', { name: { like: [null] } }, { name: { $in: [] } }],
    ['a nested path is a field like any other', { 'address.city': { eq: ['Lisbon'] } }, { 'address.city': { $eq: 'Lisbon' } }],
    ['empty operator lists are absent', { qty: { eq: [], gt: [1] } }, { qty: { $gt: 1 } }],
  ])('%s', (_label, filters, expected) => {
    expect(query(filters)).toEqual(expected);
  });

  it('never loses eq next to other operators on the same field: each is a clause under $and', () => {
    expect(query({ qty: { gt: [1], eq: [5], lt: [9] } })).toEqual({
      $and: [{ qty: { $eq: 5 } }, { qty: { $gt: 1 } }, { qty: { $lt: 9 } }],
    });
  });

  it('ANDs fields: single-clause fields as keys, several-clause fields under $and', () => {
    expect(query({ active: { eq: [true] }, qty: { gte: [10], lt: [40] }, name: { like: ['a%'] } })).toEqual({
      active: { $eq: true },
      name: { $regex: '^a.*', $options: 's' },
      $and: [{ qty: { $gte: 10 } }, { qty: { $lt: 40 } }],
    });
  });

  it('returns an empty document without filters', () => {
    expect(buildMongoFilter(undefined, COLUMNS)).toEqual({});
    expect(query({})).toEqual({});
  });

  it('never lets a filter key become an operator', () => {
    expect(query({ $where: { eq: ['sleep(1000)'] }, 'a.$b': { eq: [1] }, 'a..b': { eq: [1] } })).toEqual({});
  });

  it('keeps a field named __proto__ as a field', () => {
    // As the request's JSON body arrives: an own key, not the object literal's prototype setter.
    const q = query(JSON.parse('{"__proto__": {"eq": [1]}}') as Record<string, FilterCondition>);
    expect(Object.keys(q)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
  });

  it('builds a document the driver can serialize', () => {
    const q = query({ day: { between: ['2026-01-01', '2026-12-31'] }, amount: { gt: ['1.5'] }, _id: { in: ['65f0c0ffee0000000000abcd'] } });
    expect(() => BSON.serialize(q)).not.toThrow();
  });
});

describe('MongoDB filter translation: string values meet the sampled BSON type', () => {
  it('a string on a Date field becomes a Date; a bare day is midnight UTC', () => {
    expect(query({ day: { between: ['2026-02-28', '2026-04-30'] } })).toEqual({
      day: { $gte: new Date('2026-02-28T00:00:00.000Z'), $lte: new Date('2026-04-30T00:00:00.000Z') },
    });
    expect(query({ day: { eq: ['2026-01-15T08:30:00'] } })).toEqual({ day: { $eq: new Date('2026-01-15T08:30:00.000Z') } });
  });

  it('an ISO date-time with an offset is converted to UTC', () => {
    expect(query({ day: { gt: ['2026-01-15T10:30:00+02:00'] } })).toEqual({ day: { $gt: new Date('2026-01-15T08:30:00.000Z') } });
  });

  it('a string that is no date stays a string (and matches nothing on a Date field, as in MongoDB)', () => {
    expect(query({ day: { eq: ['yesterday'] } })).toEqual({ day: { $eq: 'yesterday' } });
  });

  it('on a field holding dates and strings, membership matches both forms, comparisons the date', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(query({ mixed: { eq: ['2026-01-01'] } })).toEqual({ mixed: { $in: [at, '2026-01-01'] } });
    expect(query({ mixed: { ne: ['2026-01-01'] } })).toEqual({ mixed: { $nin: [at, '2026-01-01', null] } });
    expect(query({ mixed: { gte: ['2026-01-01'] } })).toEqual({ mixed: { $gte: at } });
  });

  it('24 hex digits on an ObjectId field become an ObjectId', () => {
    const q = query({ _id: { eq: ['65f0c0ffee0000000000abcd', '65f0c0ffee0000000000abce'] } });
    expect(q).toEqual({ _id: { $in: [new ObjectId('65f0c0ffee0000000000abcd'), new ObjectId('65f0c0ffee0000000000abce')] } });
    expect((q._id as { $in: unknown[] }).$in[0]).toBeInstanceOf(ObjectId);
    expect(query({ _id: { eq: ['not-an-id'] } })).toEqual({ _id: { $eq: 'not-an-id' } });
  });

  it('a string on a Decimal128 field becomes a Decimal128 with its exact digits; numbers stay numbers', () => {
    const q = query({ amount: { gt: ['10.50'] } });
    const bound = (q.amount as { $gt: Decimal128 }).$gt;
    expect(bound).toBeInstanceOf(Decimal128);
    expect(bound.toString()).toBe('10.50');
  });

  it('a number on a Decimal128 field is the decimal it is written as (double 0.1 is not decimal 0.1)', () => {
    const q = query({ amount: { eq: [0.1] } });
    const value = (q.amount as { $eq: Decimal128 }).$eq;
    expect(value).toBeInstanceOf(Decimal128);
    expect(value.toString()).toBe('0.1');
    expect(query({ amount: { lte: [0] } })).toEqual({ amount: { $lte: Decimal128.fromString('0') } });
  });

  it('numbers stay numbers on other numeric fields; on a decimal-and-double field membership matches both', () => {
    expect(query({ qty: { eq: [5] } })).toEqual({ qty: { $eq: 5 } });
    const mixed = buildMongoFilter({ x: { in: [1.5] } }, [field('x', 'decimal', 'double')]);
    expect(mixed).toEqual({ x: { $in: [Decimal128.fromString('1.5'), 1.5] } });
  });

  it('an integer string on a Long field becomes a Long without losing digits', () => {
    const q = query({ big: { eq: ['9223372036854775807'] } });
    const value = (q.big as { $eq: Long }).$eq;
    expect(value).toBeInstanceOf(Long);
    expect(value.toString()).toBe('9223372036854775807');
  });

  it('a numeric string on an int/double field becomes a number', () => {
    expect(query({ qty: { lte: ['7'] } })).toEqual({ qty: { $lte: 7 } });
    expect(query({ score: { gt: ['1.5e2'] } })).toEqual({ score: { $gt: 150 } });
    expect(query({ qty: { eq: ['seven'] } })).toEqual({ qty: { $eq: 'seven' } });
  });

  it("'true'/'false' on a boolean field become booleans", () => {
    expect(query({ active: { eq: ['true'] } })).toEqual({ active: { $eq: true } });
  });

  it('a UUID string on a UUID field becomes binData subtype 4', () => {
    const q = query({ uid: { eq: ['123e4567-e89b-12d3-a456-426614174000'] } });
    const value = (q.uid as { $eq: UUID }).$eq;
    expect(value.sub_type).toBe(4);
    expect(value.toHexString()).toBe('123e4567-e89b-12d3-a456-426614174000');
  });

  it('a field without type info keeps values as given', () => {
    expect(buildMongoFilter({ x: { eq: ['2026-01-01'] } }, [])).toEqual({ x: { $eq: '2026-01-01' } });
  });
});

describe('SQL LIKE → MongoDB $regex', () => {
  const matches = (pattern: string, text: string): boolean => new RegExp(likeToRegex(pattern), 's').test(text);

  it.each<[string, string]>([
    ['abc', '^abc$(?!\\n)'],
    ['ab%', '^ab.*'],
    ['%ab', '^.*ab$(?!\\n)'],
    ['a_c', '^a.c$(?!\\n)'],
    ['a%%b', '^a.*b$(?!\\n)'],
    ['1.5*(x)+[y]{2}|^$?\\\\', '^1\\.5\\*\\(x\\)\\+\\[y\\]\\{2\\}\\|\\^\\$\\?\\\\$(?!\\n)'],
    ['50\\%', '^50%$(?!\\n)'],
    ['a\\_b', '^a_b$(?!\\n)'],
    ['trailing\\', '^trailing\\\\$(?!\\n)'],
  ])('%s → %s', (pattern, regex) => {
    expect(likeToRegex(pattern)).toBe(regex);
  });

  it.each<[string, string, boolean]>([
    ['gamma 50%', 'gamma 50%_off', true],
    ['%ta', 'beta', true],
    ['%ta', 'gamma 50%_off', false],
    ['%ta', 'Beta!', false],
    ['beta', 'Beta', false],
    ['a.c', 'abc', false],
    ['a.c', 'a.c', true],
    ['a_c', 'abc', true],
    ['a_c', 'ac', false],
    ['a%', 'a\nline two', true],
    ['a_b', 'a\nb', true],
    ['(x)', '(x)', true],
    ['50\\%', '50%', true],
    ['50\\%', '500', false],
    ['abc', 'xabcx', false],
  ])('%s against %j: %s', (pattern, text, expected) => {
    expect(matches(pattern, text)).toBe(expected);
  });
});

describe('ISO-8601 parsing for Date fields', () => {
  it.each<[string, string | null]>([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T12:00:00.250', '2026-03-01T12:00:00.250Z'],
    ['2026-03-01T12:00:00.123456Z', '2026-03-01T12:00:00.123Z'],
    ['2026-03-01 12:00', '2026-03-01T12:00:00.000Z'],
    ['2026-03-01T12:00:00-03:30', '2026-03-01T15:30:00.000Z'],
    ['2026-03-01T12:00:00+0100', '2026-03-01T11:00:00.000Z'],
    ['0099-01-01', '0099-01-01T00:00:00.000Z'],
    ['2026-02-30', null],
    ['2026-13-01', null],
    ['2026-03-01T25:00', null],
    ['03/01/2026', null],
    ['2026-03-01junk', null],
  ])('%s → %s', (text, iso) => {
    expect(parseIsoDate(text)?.toISOString() ?? null).toBe(iso);
  });
});
