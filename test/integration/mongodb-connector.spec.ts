import {
  Binary,
  BSONRegExp,
  Code,
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MongoDbConnector } from '../../src/engine/connectors/mongodb/mongodb.connector.js';
import { RENDER_CHUNK_CHARS } from '../../src/engine/connectors/mongodb/mongodb-session.js';
import { DatasourceConnectError } from '../../src/engine/errors/datasource-errors.js';
import {
  createTempMongoDatabase,
  MONGO_SKIP_REASON,
  parseMongoUrl,
  resolvedMongoDatasource,
  TEST_MONGO_URL,
  type TempMongoDatabase,
} from '../helpers/mongo-database.js';

describe('TEST_MONGO_URL parsing (no connection)', () => {
  it('splits a URL into the parts of a connection record', () => {
    expect(parseMongoUrl('mongodb://us%40er:p%3Ass@127.0.0.1:27018/fetcher_test?authSource=users&directConnection=true&tls=true')).toEqual({
      host: '127.0.0.1',
      port: 27018,
      user: 'us@er',
      password: 'p:ss',
      authSource: 'users',
      directConnection: true,
      sslMode: 'true',
      database: 'fetcher_test',
    });
    expect(parseMongoUrl('mongodb://[::1]/')).toMatchObject({
      host: '::1',
      port: 27017,
      user: '',
      authSource: 'admin',
      sslMode: null,
      database: 'fetcher_test',
    });
    expect(() => parseMongoUrl('mongodb://a:1,b:2/x')).toThrow('single host');
  });
});

const TEXT = 'He said "hi" \\ back\nnew\tline \u0001 😀 ção';
const OID = new ObjectId('65f0c0ffee0000000000abcd');

/** One document with every BSON type the connector maps, and one with nothing but keys. */
const FIDELITY: Document[] = [
  {
    _id: new Int32(1),
    oid: OID,
    i32: new Int32(-2147483648),
    i64: Long.fromString('9223372036854775807'),
    i64min: Long.fromString('-9223372036854775808'),
    dbl: new Double(0.1),
    dblInt: new Double(2),
    nan: new Double(NaN),
    inf: new Double(Infinity),
    ninf: new Double(-Infinity),
    dec: Decimal128.fromString('1234567890123456789012345678901.234'),
    decZero: Decimal128.fromString('0.00'),
    yes: true,
    no: false,
    text: TEXT,
    date: new Date('2026-03-01T12:00:00.250Z'),
    old: new Date('1969-07-20T20:17:40Z'),
    bin: new Binary(Buffer.from([0, 255, 16])),
    uuid: new UUID('123e4567-e89b-12d3-a456-426614174000'),
    ts: new Timestamp({ t: 1_700_000_000, i: 7 }),
    re: new BSONRegExp('^a.b$', 'i'),
    min: new MinKey(),
    max: new MaxKey(),
    code: new Code('function () { return 1; }'),
    nil: null,
    doc: { city: 'Lisbon', geo: { lat: new Double(38.7), lng: new Double(-9.1) }, tags: ['a', 'b'] },
    arr: [new Int32(1), 'two', null, { k: Decimal128.fromString('1.5') }, [new Int32(3)]],
    items: [{ sku: 'A1', qty: new Int32(2) }, { sku: 'B2' }],
  },
  { _id: new Int32(2), oid: new ObjectId('65f0c0ffee0000000000abce') },
];

const ROW_1 = [
  '"_id":1',
  '"oid":"65f0c0ffee0000000000abcd"',
  '"i32":-2147483648',
  '"i64":9223372036854775807',
  '"i64min":-9223372036854775808',
  '"dbl":0.1',
  '"dblInt":2',
  '"nan":"NaN"',
  '"inf":"Infinity"',
  '"ninf":"-Infinity"',
  '"dec":"1234567890123456789012345678901.234"',
  '"decZero":"0.00"',
  '"yes":true',
  '"no":false',
  `"text":${JSON.stringify(TEXT)}`,
  '"date":"2026-03-01T12:00:00.250Z"',
  '"old":"1969-07-20T20:17:40.000Z"',
  '"bin":"AP8Q"',
  '"uuid":"123e4567-e89b-12d3-a456-426614174000"',
  '"ts":{"t":1700000000,"i":7}',
  '"re":"/^a.b$/i"',
  '"min":"MinKey"',
  '"max":"MaxKey"',
  '"code":"function () { return 1; }"',
  '"nil":null',
  '"doc":{"city":"Lisbon","geo":{"lat":38.7,"lng":-9.1},"tags":["a","b"]}',
  '"arr":[1,"two",null,{"k":"1.5"},[3]]',
  '"items":[{"sku":"A1","qty":2},{"sku":"B2"}]',
];
const TOP_LEVEL = ROW_1.map((pair) => JSON.parse(`{${pair}}`) as object).map((o) => Object.keys(o)[0]);
const ROW_2 = TOP_LEVEL.map((key) =>
  key === '_id' ? '"_id":2' : key === 'oid' ? '"oid":"65f0c0ffee0000000000abce"' : `${JSON.stringify(key)}:null`,
);

async function collect(batches: AsyncIterable<RowBatch>): Promise<{ json: string; rows: number; chunks: RowBatch[] }> {
  const chunks: RowBatch[] = [];
  for await (const chunk of batches) chunks.push(chunk);
  return { json: chunks.map((c) => c.json.toString('utf8')).join(','), rows: chunks.reduce((n, c) => n + c.rowCount, 0), chunks };
}

if (!TEST_MONGO_URL) {
  describe.skip(`MongoDbConnector against a MongoDB server — SKIPPED: ${MONGO_SKIP_REASON}`, () => {
    it.skip('needs a server', () => undefined);
  });
  process.stdout.write(`\n[mongodb-connector] SKIPPED — ${MONGO_SKIP_REASON}\n`);
} else {
  describe('MongoDbConnector against a MongoDB server', () => {
    const connector = new MongoDbConnector();
    let db: TempMongoDatabase;
    let session: ConnectorSession;
    const BIG = 20_000;

    beforeAll(async () => {
      db = await createTempMongoDatabase('connector');
      await db.db.collection('fidelity').insertMany(FIDELITY as never[]);
      await db.db
        .collection('sampled')
        .insertMany(
          Array.from({ length: 300 }, (_, i) => ({ _id: new Int32(i), v: i, ...(i === 250 ? { rare: { x: 1 } } : {}) })) as never[],
        );
      await db.db.createCollection('empty');
      await db.db.createCollection('fidelity_view', { viewOn: 'fidelity', pipeline: [{ $project: { oid: 1, city: '$doc.city' } }] });
      await db.db.collection('sales.2026').insertOne({ _id: new Int32(1), total: new Int32(5) } as never);
      for (let start = 0; start < BIG; start += 5_000) {
        await db.db.collection('big').insertMany(
          Array.from({ length: 5_000 }, (_, i) => ({
            _id: new Int32(start + i),
            payload: 'x'.repeat(100),
            n: new Int32(start + i),
          })) as never[],
        );
      }
      session = await connector.open(resolvedMongoDatasource(db), { connectTimeoutMs: 10_000 });
    }, 120_000);

    afterAll(async () => {
      await session?.close();
      await db?.drop();
    });

    const table = async (key: string): Promise<TableInfo> => {
      const info = (await session.discover(null, new AbortController().signal)).tables.get(key);
      if (!info) throw new Error(`${key} not discovered`);
      return info;
    };
    const pick = (info: TableInfo, ...names: string[]) => names.map((name) => info.columns.find((c) => c.name === name)!);

    it('discovers collections, views and dotted names, never system.*, with nested paths by sampling', async () => {
      const snapshot = await session.discover(null, new AbortController().signal);
      expect([...snapshot.tables.keys()].sort()).toEqual(['big', 'empty', 'fidelity', 'fidelity_view', 'sales.2026', 'sampled']);
      const fidelity = snapshot.tables.get('fidelity')!;
      expect(fidelity.primaryKey).toEqual(['_id']);
      expect(fidelity.columns.map((c) => c.name)).toEqual(
        expect.arrayContaining(['doc', 'doc.city', 'doc.geo', 'doc.geo.lat', 'doc.tags', 'items', 'items.sku', 'items.qty', 'arr.k']),
      );
      expect(fidelity.columns.filter((c) => !c.name.includes('.')).map((c) => c.name)).toEqual(TOP_LEVEL);
      expect(fidelity.columns.find((c) => c.name === 'date')?.dataType).toBe('date');
      expect(fidelity.columns.find((c) => c.name === 'dec')?.dataType).toBe('decimal');
      expect(snapshot.tables.get('empty')?.columns.map((c) => c.name)).toEqual(['_id']);
      expect(snapshot.tables.get('sampled')?.columns.map((c) => c.name)).toEqual(['_id', 'v', 'rare', 'rare.x']);
      expect(snapshot.tables.get('fidelity_view')?.columns.map((c) => c.name)).toEqual(['_id', 'oid', 'city']);
    });

    it('renders every BSON type with full fidelity (docs/value-mapping.md), ["*"] giving whole top-level fields', async () => {
      const fidelity = await table('fidelity');
      const { json, rows } = await collect(session.readRows({ table: fidelity, columns: fidelity.columns }, new AbortController().signal));
      expect(rows).toBe(2);
      expect(json).toBe(`{${ROW_1.join(',')}},{${ROW_2.join(',')}}`);
    });

    it('projects nested paths under flat keys in request order; _id only when requested', async () => {
      const fidelity = await table('fidelity');
      const nested = await collect(
        session.readRows(
          { table: fidelity, columns: pick(fidelity, 'doc.geo.lat', 'items.sku', 'doc.city', 'doc') },
          new AbortController().signal,
        ),
      );
      expect(nested.json).toBe(
        '{"doc.geo.lat":38.7,"items.sku":["A1","B2"],"doc.city":"Lisbon","doc":{"city":"Lisbon","geo":{"lat":38.7,"lng":-9.1},"tags":["a","b"]}},' +
          '{"doc.geo.lat":null,"items.sku":null,"doc.city":null,"doc":null}',
      );
      const noId = await collect(session.readRows({ table: fidelity, columns: pick(fidelity, 'oid') }, new AbortController().signal));
      expect(noId.json).toBe('{"oid":"65f0c0ffee0000000000abcd"},{"oid":"65f0c0ffee0000000000abce"}');
    });

    it.each<[string, Record<string, Record<string, (string | number | null)[]>>, number[]]>([
      ['a nested path', { 'doc.city': { eq: ['Lisbon'] } }, [1]],
      ['a path through an array of documents', { 'items.sku': { eq: ['B2'] } }, [1]],
      ['an ObjectId given as hex', { oid: { eq: ['65f0c0ffee0000000000abce'] } }, [2]],
      ['a Date given as a day', { date: { gte: ['2026-03-01'] } }, [1]],
      ['a Decimal128 given as text', { dec: { gt: ['1e30'] } }, [1]],
      ['eq [null] matches missing fields', { text: { eq: [null] } }, [2]],
      ['like with _ and %', { 'doc.city': { like: ['Lis_o%'] } }, [1]],
      ['like takes a regex metacharacter literally', { 'doc.city': { like: ['L.sbon'] } }, []],
    ])('filters: %s', async (_label, filters, ids) => {
      const fidelity = await table('fidelity');
      const { json } = await collect(
        session.readRows({ table: fidelity, columns: pick(fidelity, '_id'), filters }, new AbortController().signal),
      );
      expect((JSON.parse(`[${json}]`) as { _id: number }[]).map((row) => row._id)).toEqual(ids);
    });

    it('reads a dotted collection name as one collection, and a view', async () => {
      const sales = await table('sales.2026');
      expect((await collect(session.readRows({ table: sales, columns: sales.columns }, new AbortController().signal))).json).toBe(
        '{"_id":1,"total":5}',
      );
      const view = await table('fidelity_view');
      expect((await collect(session.readRows({ table: view, columns: pick(view, 'city') }, new AbortController().signal))).json).toBe(
        '{"city":"Lisbon"},{"city":null}',
      );
    });

    it(`streams ${BIG} documents in _id order in ~48 KiB chunks`, async () => {
      const big = await table('big');
      const { json, rows, chunks } = await collect(
        session.readRows({ table: big, columns: pick(big, 'n', 'payload') }, new AbortController().signal),
      );
      expect(rows).toBe(BIG);
      for (const chunk of chunks.slice(0, -1)) expect(chunk.json.length).toBeGreaterThanOrEqual(RENDER_CHUNK_CHARS);
      const ns = (JSON.parse(`[${json}]`) as { n: number }[]).map((row) => row.n);
      expect(ns).toEqual(Array.from({ length: BIG }, (_, i) => i));
    });

    /** Idle cursors still open on the server for a collection (needs the inprog privilege). */
    const idleCursors = async (collection: string): Promise<number | null> => {
      try {
        const ops = await db.db.client
          .db('admin')
          .aggregate([{ $currentOp: { idleCursors: true } }, { $match: { type: 'idleCursor', 'cursor.ns': `${db.name}.${collection}` } }])
          .toArray();
        return ops.length;
      } catch {
        return null;
      }
    };

    it('kills the server cursor on an early stop and on an abort', async () => {
      const big = await table('big');
      for await (const _ of session.readRows({ table: big, columns: big.columns }, new AbortController().signal)) break;
      const controller = new AbortController();
      const reading = (async () => {
        for await (const _ of session.readRows({ table: big, columns: big.columns }, controller.signal))
          controller.abort(new Error('job cancelled'));
      })();
      await expect(reading).rejects.toThrow('job cancelled');
      const open = await idleCursors('big');
      if (open === null) process.stdout.write('[mongodb-connector] the test login cannot run $currentOp: cursor cleanup not checked\n');
      else await expect.poll(() => idleCursors('big'), { timeout: 5_000 }).toBe(0);
    });

    it('classifies connect failures: wrong password, closed port, unknown host', async () => {
      const open = (overrides: Parameters<typeof resolvedMongoDatasource>[1]) =>
        connector.open(resolvedMongoDatasource(db, overrides), { connectTimeoutMs: 3_000 }).then(
          async (s) => {
            await s.close();
            return null;
          },
          (e: unknown) => e as DatasourceConnectError,
        );
      if (db.target.user !== '') {
        const wrong = await open({ password: 'definitely-not-the-password' });
        expect(wrong?.reason).toBe('auth_failed');
        expect(wrong?.message).not.toContain('definitely-not');
      }
      expect((await open({ host: '127.0.0.1', port: 1 }))?.reason).toBe('unreachable');
      expect((await open({ host: 'no-such-host.invalid' }))?.reason).toBe('unreachable');
    });

    it('a database that does not exist opens and has no collections (MongoDB creates databases on write)', async () => {
      const other = await connector.open(resolvedMongoDatasource({ name: `${db.name}_absent`.slice(0, 63), target: db.target }), {
        connectTimeoutMs: 10_000,
      });
      try {
        expect((await other.discover(null, new AbortController().signal)).tables.size).toBe(0);
      } finally {
        await other.close();
      }
    });
  });
}
