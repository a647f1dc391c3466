import { BSON, Decimal128, Int32, Long, MongoNetworkError, MongoServerError, ObjectId, UUID, type Db, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import {
  DISCOVERY_MAX_TIME_MS,
  discoverDatabase,
  FieldCollector,
  HEAD_DOCS,
  MAX_FIELD_PATHS,
  SAMPLE_DOCS,
  toTableInfo,
  VIEW_SAMPLE_DOCS,
} from './mongodb-discovery.js';
import { BSON_READ_OPTIONS } from './mongodb-values.js';
import { CatalogTooLargeError } from '../../errors/engine-errors.js';
import { CatalogBudget } from '../shared/catalog-budget.js';

const asDriverReturns = (doc: Document): Document => BSON.deserialize(BSON.serialize(doc), BSON_READ_OPTIONS);

const names = (collector: FieldCollector, withId = true) => collector.columns(withId).map((c) => c.name);
const typesOf = (collector: FieldCollector) => Object.fromEntries(collector.columns(true).map((c) => [c.name, c.dataType]));

describe('MongoDB field discovery by sampling', () => {
  it('lists nested paths in first-seen order with _id first, arrays of documents included', () => {
    const collector = new FieldCollector();
    collector.add(
      asDriverReturns({
        name: 'Ana',
        _id: new ObjectId(),
        address: { city: 'Lisbon', geo: { lat: 1.5 } },
        items: [{ sku: 'A' }, { sku: 'B', qty: new Int32(1) }],
      }),
    );
    collector.add(asDriverReturns({ _id: new ObjectId(), extra: true, address: { zip: '1000' } }));
    expect(names(collector)).toEqual([
      '_id',
      'name',
      'address',
      'address.city',
      'address.geo',
      'address.geo.lat',
      'address.zip',
      'items',
      'items.sku',
      'items.qty',
      'extra',
    ]);
  });

  it('records every BSON type seen at a path, array elements included', () => {
    const collector = new FieldCollector();
    collector.add(
      asDriverReturns({
        _id: new Int32(1),
        at: new Date(),
        amount: Decimal128.fromString('1.5'),
        n: Long.fromInt(1),
        tags: ['a', 'b'],
        u: new UUID(),
        note: null,
      }),
    );
    collector.add(asDriverReturns({ _id: new Int32(2), at: '2026-01-01', amount: new Int32(3), tags: [new Int32(1)], note: 'x' }));
    expect(typesOf(collector)).toEqual({
      _id: 'int',
      at: 'date|string',
      amount: 'decimal|int',
      n: 'long',
      tags: 'array|string|int',
      u: 'uuid',
      note: 'null|string',
    });
    expect(collector.columns(true).find((c) => c.name === 'at')?.engineType).toEqual({ bsonTypes: ['date', 'string'] });
  });

  it('keeps engineType plain JSON (the snapshot may be cached as JSON)', () => {
    const collector = new FieldCollector();
    collector.add(asDriverReturns({ _id: new ObjectId(), a: { b: 1 } }));
    const columns = collector.columns(true);
    expect(JSON.parse(JSON.stringify(columns))).toEqual(columns);
  });

  it('skips keys that a path cannot address ($-prefixed, dotted) but keeps their siblings', () => {
    const collector = new FieldCollector();
    collector.add({ _id: 1, 'a.b': 1, $weird: 2, ok: { 'x.y': 1, fine: 2 } });
    expect(names(collector)).toEqual(['_id', 'ok', 'ok.fine']);
  });

  it('stops listing new paths past MAX_FIELD_PATHS (documents used as maps)', () => {
    const collector = new FieldCollector();
    const map = Object.fromEntries(Array.from({ length: MAX_FIELD_PATHS + 50 }, (_, i) => [`k${i}`, i]));
    collector.add({ _id: 1, map });
    expect(names(collector)).toHaveLength(MAX_FIELD_PATHS);
  });

  it('an empty collection is discovered with _id only, as primary key', () => {
    const table = toTableInfo({ name: 'empty', type: 'collection' }, new FieldCollector());
    expect(table).toEqual({
      schema: null,
      name: 'empty',
      key: 'empty',
      columns: [{ name: '_id', dataType: 'unknown', engineType: { bsonTypes: [] } }],
      primaryKey: ['_id'],
    });
  });

  it('a view whose documents have no _id has no _id column and no primary key', () => {
    const collector = new FieldCollector();
    collector.add({ total: 1 });
    expect(toTableInfo({ name: 'v', type: 'view' }, collector)).toMatchObject({ columns: [{ name: 'total' }], primaryKey: [] });
  });
});

interface Call {
  readonly collection: string;
  readonly kind: 'find' | 'aggregate';
  readonly arg: unknown;
  readonly options: Document;
}

/** A Db with the calls discovery makes; documents pass through a real BSON round trip. */
function fakeDb(collections: { name: string; type?: string; docs: Document[]; fail?: Error }[]) {
  const calls: Call[] = [];
  let listOptions: unknown;
  const cursor = (docs: Document[], fail?: Error) => ({
    async *[Symbol.asyncIterator]() {
      if (fail) throw fail;
      for (const doc of docs) yield asDriverReturns(doc);
    },
  });
  const db = {
    listCollections: (_filter: Document, options: unknown) => {
      listOptions = options;
      // Discovery reads the listing as it arrives (each name charged to the catalog budget).
      const infos = collections.map(({ name, type }) => ({ name, type }));
      return {
        toArray: async () => infos,
        async *[Symbol.asyncIterator]() {
          yield* infos;
        },
      };
    },
    collection: (name: string) => {
      const spec = collections.find((c) => c.name === name)!;
      return {
        find: (filter: Document, options: Document) => {
          calls.push({ collection: name, kind: 'find', arg: filter, options });
          return cursor(spec.docs.slice(0, options.limit as number), spec.fail);
        },
        aggregate: (pipeline: Document[], options: Document) => {
          calls.push({ collection: name, kind: 'aggregate', arg: pipeline, options });
          return cursor(spec.docs.slice(HEAD_DOCS), spec.fail);
        },
      };
    },
  };
  return { db: db as unknown as Db, calls, listOptions: () => listOptions };
}

const many = (n: number, extra: (i: number) => Document = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ _id: new Int32(i), v: 'x', ...extra(i) }));

describe('MongoDB database discovery', () => {
  it('lists collections and views (never system.*), sorted, each with its sampled fields', async () => {
    const { db, listOptions } = fakeDb([
      { name: 'zeta', docs: many(3) },
      { name: 'system.views', docs: [] },
      { name: 'system.buckets.metrics', docs: [] },
      { name: 'alpha.2026', docs: [{ _id: 1, a: { b: 1 } }] },
      { name: 'big_view', type: 'view', docs: [{ _id: 1, total: 3 }] },
    ]);
    const snapshot = await discoverDatabase(db);
    expect([...snapshot.tables.keys()]).toEqual(['alpha.2026', 'big_view', 'zeta']);
    expect(snapshot.tables.get('alpha.2026')).toMatchObject({ schema: null, name: 'alpha.2026', primaryKey: ['_id'] });
    expect(snapshot.tables.get('alpha.2026')?.columns.map((c) => c.name)).toEqual(['_id', 'a', 'a.b']);
    expect(snapshot.tables.get('big_view')?.columns.map((c) => c.name)).toEqual(['_id', 'total']);
    expect(listOptions()).toEqual({ nameOnly: true, authorizedCollections: true });
  });

  it('reads the head in _id order, and a $sample only when the collection has more', async () => {
    const { db, calls } = fakeDb([
      { name: 'small', docs: many(5) },
      { name: 'large', docs: many(HEAD_DOCS + 10, (i) => (i === HEAD_DOCS + 5 ? { rare: { deep: true } } : {})) },
    ]);
    const snapshot = await discoverDatabase(db);
    const common = { maxTimeMS: DISCOVERY_MAX_TIME_MS, batchSize: 200, ...BSON_READ_OPTIONS };
    expect(calls.filter((c) => c.collection === 'small')).toEqual([
      { collection: 'small', kind: 'find', arg: {}, options: { ...common, sort: { _id: 1 }, limit: HEAD_DOCS } },
    ]);
    expect(calls.filter((c) => c.collection === 'large')).toEqual([
      { collection: 'large', kind: 'find', arg: {}, options: { ...common, sort: { _id: 1 }, limit: HEAD_DOCS } },
      { collection: 'large', kind: 'aggregate', arg: [{ $sample: { size: SAMPLE_DOCS } }], options: common },
    ]);
    // A field only the random sample saw is discovered too, after the head's fields.
    expect(snapshot.tables.get('large')?.columns.map((c) => c.name)).toEqual(['_id', 'v', 'rare', 'rare.deep']);
  });

  it('reads views with a plain limit and time-series collections without sorting', async () => {
    const { db, calls } = fakeDb([
      { name: 'v', type: 'view', docs: many(HEAD_DOCS + 1) },
      { name: 'ts', type: 'timeseries', docs: many(2) },
    ]);
    await discoverDatabase(db);
    const view = calls.filter((c) => c.collection === 'v');
    expect(view).toHaveLength(1);
    expect(view[0].options.limit).toBe(VIEW_SAMPLE_DOCS);
    expect(view[0].options.sort).toBeUndefined();
    const ts = calls.find((c) => c.collection === 'ts')!;
    expect(ts.options.limit).toBe(HEAD_DOCS);
    expect(ts.options.sort).toBeUndefined();
  });

  it('a collection the server refuses to sample keeps _id; the others are discovered', async () => {
    const refused = new MongoServerError({
      message: 'not authorized on db to execute command { find: "secret" }',
      code: 13,
      codeName: 'Unauthorized',
    });
    const { db } = fakeDb([
      { name: 'secret', docs: [], fail: refused },
      { name: 'open', docs: [{ _id: 1, a: 1 }] },
    ]);
    const snapshot = await discoverDatabase(db);
    expect(snapshot.tables.get('secret')?.columns.map((c) => c.name)).toEqual(['_id']);
    expect(snapshot.tables.get('open')?.columns.map((c) => c.name)).toEqual(['_id', 'a']);
  });

  it('a network failure fails the discovery (never a silently partial schema)', async () => {
    const { db } = fakeDb([{ name: 'c', docs: [], fail: new MongoNetworkError('connection 3 to 10.0.0.1:27017 closed') }]);
    await expect(discoverDatabase(db)).rejects.toThrow('closed');
  });

  it('an empty database has no tables', async () => {
    const { db } = fakeDb([]);
    expect((await discoverDatabase(db)).tables.size).toBe(0);
  });
});

describe('MongoDB discovery byte budget', () => {
  it('stops a collection listing that does not end once the names kept pass the budget', async () => {
    let listed = 0;
    const db = {
      listCollections: () => ({
        async *[Symbol.asyncIterator]() {
          for (;;) yield { name: `collection_${listed++}`, type: 'collection' };
        },
      }),
    } as unknown as Db;
    const error = await discoverDatabase(db, undefined, new CatalogBudget(64 * 1024, 'mongo')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogTooLargeError);
    // ~25 bytes a name: a few thousand names, not an endless list.
    expect(listed).toBeLessThan(4_000);
  });

  it('charges the field paths and types it keeps, not the sampled documents', async () => {
    const wide = Array.from({ length: 5 }, (_, i) =>
      Object.fromEntries([['_id', new Int32(i)], ...Array.from({ length: 200 }, (_, f) => [`field_${i}_${f}`, 'x'])]),
    );
    const { db } = fakeDb([{ name: 'wide', docs: wide }]);
    await expect(discoverDatabase(db, undefined, new CatalogBudget(4 * 1024, 'mongo'))).rejects.toBeInstanceOf(CatalogTooLargeError);
    // One narrow collection of many documents: each path is charged once, however often it appears.
    const { db: narrow } = fakeDb([{ name: 'narrow', docs: many(HEAD_DOCS + SAMPLE_DOCS) }]);
    const budget = new CatalogBudget(4 * 1024, 'mongo');
    const snapshot = await discoverDatabase(narrow, undefined, budget);
    expect(snapshot.tables.get('narrow')?.columns.map((c) => c.name)).toEqual(['_id', 'v']);
    expect(budget.usedBytes).toBeLessThan(64);
  });
});
