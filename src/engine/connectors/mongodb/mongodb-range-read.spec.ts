import { Decimal128, Double, Int32, Long, ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { CursorKind, CursorRange } from '../../incremental/cursor-range.js';
import { rangeRead } from '../../incremental/range-filters.js';
import type { ColumnInfo, TableInfo } from '../shared/engine-connector.js';
import { buildFind } from './mongodb-query.js';
import { bindMark, boundFind, boundText, cursorKindOf, MongoMarkError } from './mongodb-range-read.js';
import type { BsonTypeName } from './mongodb-types.js';
import { MongoDbConnector } from './mongodb.connector.js';

const field = (name: string, ...bsonTypes: BsonTypeName[]): ColumnInfo => ({
  name,
  dataType: bsonTypes.join('|'),
  engineType: { bsonTypes },
});
const range = (column: ColumnInfo, kind: CursorKind, extra: Partial<CursorRange> = {}): CursorRange => ({ column, kind, ...extra });

const ID = field('_id', 'objectId');
const AT = field('at', 'date', 'null');
const SEQ = field('seq', 'int', 'long');
const PRICE = field('price', 'decimal');
const NESTED = field('meta.version', 'int');
const COLUMNS = [ID, AT, SEQ, PRICE, NESTED];
const ITEMS: TableInfo = { schema: null, name: 'items', key: 'items', columns: COLUMNS, primaryKey: ['_id'] };

describe('MongoDB cursor kinds', () => {
  it.each([
    [['objectId'], 'objectid'],
    [['date'], 'timestamptz'],
    [['null', 'date'], 'timestamptz'],
    [['int'], 'integer'],
    [['long'], 'integer'],
    [['int', 'long', 'null'], 'integer'],
    [['decimal'], 'decimal'],
  ] as [BsonTypeName[], CursorKind][])('%j is a %s cursor', (types, kind) => {
    expect(new MongoDbConnector().cursorKind(field('f', ...types))).toBe(kind);
  });

  it.each([
    [['double']],
    [['int', 'double']],
    [['decimal', 'double']],
    [['int', 'string']],
    [['date', 'string']],
    [['objectId', 'string']],
    [['array', 'int']],
    [['object']],
    [['string']],
    [['bool']],
    [['timestamp']],
    [['uuid']],
    [['null']],
    [[]],
  ] as [BsonTypeName[]][])('%j cannot be a cursor', (types) => {
    expect(cursorKindOf(field('f', ...types))).toBeNull();
  });

  it('refuses a field without sampled types', () => {
    expect(cursorKindOf({ name: 'f', dataType: 'unknown' })).toBeNull();
  });
});

describe('MongoDB marks', () => {
  it('binds marks as their text, for the filter to convert', () => {
    expect(bindMark('65f0c0ffee0000000000abcd', 'objectid')).toBe('65f0c0ffee0000000000abcd');
    expect(bindMark('2024-01-15T10:20:30.123Z', 'timestamptz')).toBe('2024-01-15T10:20:30.123Z');
    expect(bindMark('9223372036854775807', 'integer')).toBe('9223372036854775807');
    expect(bindMark('-12.50', 'decimal')).toBe('-12.50');
    expect(bindMark('1.0E+3', 'decimal')).toBe('1.0E+3');
  });

  it.each([
    ['65f0c0ffee', 'objectid'],
    ['yesterday', 'timestamptz'],
    ['12.5', 'integer'],
    ['9223372036854775808', 'integer'],
    ['ten', 'decimal'],
    ['2024-01-01', 'date'],
  ] as [string, CursorKind][])('refuses %j as a %s value', (text, kind) => {
    expect(() => bindMark(text, kind)).toThrow(MongoMarkError);
  });

  it('reads the range with values of the sampled types', () => {
    const plan = buildFind(
      rangeRead({ table: ITEMS, columns: [ID], range: range(SEQ, 'integer', { after: '41' }) }, '9007199254740993', bindMark),
    );
    expect(plan.filter).toEqual({
      $and: [{ seq: { $gt: Long.fromString('41') } }, { seq: { $lte: Long.fromString('9007199254740993') } }],
    });
    const dates = buildFind(
      rangeRead(
        { table: ITEMS, columns: [ID], range: range(AT, 'timestamptz', { from: '2024-01-01' }) },
        '2024-01-15T10:20:30.123Z',
        bindMark,
      ),
    );
    expect(dates.filter).toEqual({
      $and: [{ at: { $gte: new Date('2024-01-01T00:00:00.000Z') } }, { at: { $lte: new Date('2024-01-15T10:20:30.123Z') } }],
    });
    const ids = buildFind(rangeRead({ table: ITEMS, columns: [ID], range: range(ID, 'objectid') }, '65f0c0ffee0000000000abcd', bindMark));
    expect(ids.filter).toEqual({ _id: { $lte: new ObjectId('65f0c0ffee0000000000abcd') } });
  });
});

describe('MongoDB bound query', () => {
  it('sorts the whole collection on the cursor, descending, for one document of the kind', () => {
    expect(boundFind(range(ID, 'objectid'), COLUMNS)).toEqual({
      filter: { $and: [{ _id: { $type: 'objectId' } }] },
      options: expect.objectContaining({ sort: { _id: -1 }, limit: 1, projection: { _id: 1 }, promoteValues: false, promoteLongs: false }),
    });
    expect(boundFind(range(SEQ, 'integer'), COLUMNS)).toMatchObject({
      filter: { $and: [{ seq: { $type: ['int', 'long'] } }] },
      options: { sort: { seq: -1 }, limit: 1, projection: { seq: 1, _id: 0 } },
    });
    expect(boundFind(range(NESTED, 'integer'), COLUMNS)).toMatchObject({
      filter: { $and: [{ 'meta.version': { $type: ['int', 'long'] } }] },
      options: { sort: { 'meta.version': -1 }, projection: { 'meta.version': 1, _id: 0 } },
    });
  });

  it('keeps the bound above the mark (exclusive) or the starting value (inclusive), compared by the server', () => {
    expect(boundFind(range(SEQ, 'integer', { after: '41' }), COLUMNS).filter).toEqual({
      $and: [{ seq: { $type: ['int', 'long'] } }, { seq: { $gt: Long.fromString('41') } }],
    });
    expect(boundFind(range(ID, 'objectid', { from: '65f0c0ffee0000000000abcd' }), COLUMNS).filter).toEqual({
      $and: [{ _id: { $type: 'objectId' } }, { _id: { $gte: new ObjectId('65f0c0ffee0000000000abcd') } }],
    });
  });

  it('leaves non-finite Decimal128 values out of the bound', () => {
    expect(boundFind(range(PRICE, 'decimal', { after: '10.50' }), COLUMNS).filter).toEqual({
      $and: [
        { price: { $type: 'decimal' } },
        { price: { $gt: Decimal128.fromString('-Infinity'), $lt: Decimal128.fromString('Infinity') } },
        { price: { $gt: Decimal128.fromString('10.50') } },
      ],
    });
  });

  it('moves the lower bound up by the lag: the maximum minus the lag must pass it', () => {
    expect(boundFind(range(AT, 'timestamptz', { after: '2024-01-15T10:20:30.123Z', lagSeconds: 90 }), COLUMNS).filter).toEqual({
      $and: [{ at: { $type: 'date' } }, { at: { $gt: new Date('2024-01-15T10:22:00.123Z') } }],
    });
    expect(boundFind(range(AT, 'timestamptz', { from: '2024-01-15', lagSeconds: 1 }), COLUMNS).filter).toEqual({
      $and: [{ at: { $type: 'date' } }, { at: { $gte: new Date('2024-01-15T00:00:01.000Z') } }],
    });
  });

  it('refuses a mark that is not of its kind, and a lag on a cursor that is not a time', () => {
    expect(() => boundFind(range(ID, 'objectid', { after: 'not-an-id' }), COLUMNS)).toThrow(MongoMarkError);
    expect(() => boundFind(range(SEQ, 'integer', { from: '1.5' }), COLUMNS)).toThrow(MongoMarkError);
    expect(() => boundFind(range(SEQ, 'integer', { lagSeconds: 5 }), COLUMNS)).toThrow(/lagSeconds/);
    expect(() => boundFind(range(field('$where', 'int'), 'integer'), COLUMNS)).toThrow(MongoMarkError);
  });

  it('renders the bound as the result renders the field, minus the lag for dates', () => {
    expect(boundText(range(SEQ, 'integer'), { seq: Long.fromString('9223372036854775807') })).toBe('9223372036854775807');
    expect(boundText(range(SEQ, 'integer'), { seq: new Int32(42) })).toBe('42');
    expect(boundText(range(ID, 'objectid'), { _id: new ObjectId('65F0C0FFEE0000000000ABCD') })).toBe('65f0c0ffee0000000000abcd');
    expect(boundText(range(PRICE, 'decimal'), { price: Decimal128.fromString('10.50') })).toBe('10.50');
    expect(boundText(range(AT, 'timestamptz'), { at: new Date('2024-01-15T10:20:30.123Z') })).toBe('2024-01-15T10:20:30.123Z');
    expect(boundText(range(AT, 'timestamptz', { lagSeconds: 3600 }), { at: new Date('2024-01-15T10:20:30.123Z') })).toBe(
      '2024-01-15T09:20:30.123Z',
    );
    expect(boundText(range(NESTED, 'integer'), { meta: { version: new Int32(3) } })).toBe('3');
    expect(boundText(range(SEQ, 'integer'), null)).toBeNull();
    expect(boundText(range(SEQ, 'integer'), {})).toBeNull();
    expect(boundText(range(SEQ, 'integer'), { seq: null })).toBeNull();
    expect(() => boundText(range(NESTED, 'integer'), { meta: [{ version: new Int32(3) }] })).toThrow(MongoMarkError);
    // A double where the sample saw integers still renders as the result would.
    expect(boundText(range(SEQ, 'integer'), { seq: new Double(5) })).toBe('5');
  });
});
