import { Worker } from 'node:worker_threads';
import { Decimal128, Double, Int32, Long, ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MongoDbConnector } from '../../src/engine/connectors/mongodb/mongodb.connector.js';
import {
  createTempMongoDatabase,
  MONGO_SKIP_REASON,
  resolvedMongoDatasource,
  TEST_MONGO_URL,
  type TempMongoDatabase,
} from '../helpers/mongo-database.js';
import { rangedReader } from '../../src/engine/connectors/testing/ranged-reads.js';

/**
 * Incremental reads against a real MongoDB server (docs/incremental.md): the bound found by a
 * sorted find, rendered as the documents render the field; marks that compare exactly; the lag
 * on dates; and, on a replica set, the snapshot the bound and the documents share (a standalone
 * server has none: what that means is checked there instead).
 */
const OID0 = new ObjectId('65f0c0ffee0000000000a000');
const OID1 = new ObjectId('65f0c0ffee0000000000a001');
const OID2 = new ObjectId('65f0c0ffee0000000000a002');
const DOCS: Document[] = [
  {
    _id: OID1,
    at: new Date('2024-01-01T00:00:00.001Z'),
    seq: new Int32(1),
    price: Decimal128.fromString('10.50'),
    ratio: new Double(0.5),
    mixed: new Int32(1),
    tags: [new Int32(1)],
    note: 'a',
  },
  {
    _id: OID2,
    at: new Date('2024-01-02T00:00:00.123Z'),
    seq: Long.fromString('9223372036854775807'),
    price: Decimal128.fromString('99.99'),
    ratio: new Double(1.5),
    mixed: 'x',
    tags: [new Int32(2)],
    note: 'b',
  },
  { _id: OID0, note: 'c' },
];

/** Each cursor field's values in the first two documents as the result writes them. */
const VALUES: readonly (readonly [string, string, string])[] = [
  ['at', '"2024-01-01T00:00:00.001Z"', '"2024-01-02T00:00:00.123Z"'],
  ['seq', '1', '9223372036854775807'],
  ['price', '"10.50"', '"99.99"'],
];
const text = (json: string): string => (json.startsWith('"') ? (JSON.parse(json) as string) : json);

/**
 * One document inserted by another client on its own thread when `cue()` is called, which waits
 * for the write: the read calls onRangeBound synchronously between the bound and the documents,
 * where nothing awaited on this thread could run.
 */
async function insertOnCue(
  database: string,
  collection: string,
  id: string,
  at: string,
): Promise<{ cue(): void; close(): Promise<number> }> {
  const flags = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const { MongoClient, ObjectId } = require('mongodb');
     const flags = new Int32Array(workerData.flags);
     const done = (state) => { Atomics.store(flags, 2, state); Atomics.notify(flags, 2); };
     (async () => {
       const client = new MongoClient(workerData.url, { serverSelectionTimeoutMS: 10000 });
       await client.connect();
       const target = client.db(workerData.database).collection(workerData.collection);
       Atomics.store(flags, 0, 1);
       Atomics.wait(flags, 1, 0);
       try {
         await target.insertOne({ _id: new ObjectId(workerData.id), at: new Date(workerData.at) }, { writeConcern: { w: 'majority' } });
         done(1);
       } catch { done(2); }
       await client.close();
     })().catch(() => done(2));`,
    { eval: true, workerData: { flags: flags.buffer, url: TEST_MONGO_URL, database, collection, id, at } },
  );
  for (let waited = 0; Atomics.load(flags, 0) === 0; waited += 20) {
    if (Atomics.load(flags, 2) === 2 || waited > 30_000) throw new Error('the inserting thread could not connect');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    cue() {
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      Atomics.wait(flags, 2, 0, 30_000);
      if (Atomics.load(flags, 2) !== 1) throw new Error('the other client inserted nothing');
    },
    close: () => worker.terminate(),
  };
}

const suite = TEST_MONGO_URL ? describe : describe.skip;
if (!TEST_MONGO_URL) process.stdout.write(`\n[mongodb-incremental] SKIPPED — ${MONGO_SKIP_REASON}\n`);

suite(`MongoDB incremental reads${TEST_MONGO_URL ? '' : ` — SKIPPED: ${MONGO_SKIP_REASON}`}`, () => {
  const connector = new MongoDbConnector();
  let db: TempMongoDatabase;
  let session: ConnectorSession;
  let events: TableInfo;
  let replicaSet: boolean;

  beforeAll(async () => {
    db = await createTempMongoDatabase('incremental');
    await db.db.collection('events').insertMany(DOCS.map((doc) => ({ ...doc })));
    const hello = await db.db.command({ hello: 1 });
    replicaSet = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
    session = await connector.open(resolvedMongoDatasource(db), { connectTimeoutMs: 15_000 });
    events = (await session.discover(null, new AbortController().signal)).tables.get('events')!;
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  const { ranged } = rangedReader(connector, () => ({ session, table: events }), '_id');

  it('gives ObjectId, Date, integer and Decimal128 fields their kind, and refuses doubles, mixed types, arrays and text', () => {
    expect(Object.fromEntries(events.columns.map((c) => [c.name, connector.cursorKind(c)]))).toEqual({
      _id: 'objectid',
      at: 'timestamptz',
      seq: 'integer',
      price: 'decimal',
      ratio: null,
      mixed: null,
      tags: null,
      note: null,
    });
  });

  it.each(VALUES)('bounds a first run of %s by its maximum, written as the documents write it', async (name, one, two) => {
    expect(await ranged(name)).toEqual({
      bound: text(two),
      rows: [`{"_id":"${OID1.toHexString()}","${name}":${one}}`, `{"_id":"${OID2.toHexString()}","${name}":${two}}`],
    });
  });

  it.each(VALUES)('reads nothing above its own bound on %s: the mark compares equal to its value', async (name, _one, two) => {
    expect(await ranged(name, { after: text(two) })).toEqual({ bound: null, rows: [] });
    expect(await ranged(name, { from: text(two) })).toEqual({
      bound: text(two),
      rows: [`{"_id":"${OID2.toHexString()}","${name}":${two}}`],
    });
  });

  it('bounds an ObjectId cursor as hex text', async () => {
    expect(await ranged('_id')).toEqual({
      bound: OID2.toHexString(),
      rows: [OID0, OID1, OID2].map((id) => `{"_id":"${id.toHexString()}"}`),
    });
    expect(await ranged('_id', { after: OID1.toHexString() })).toEqual({
      bound: OID2.toHexString(),
      rows: [`{"_id":"${OID2.toHexString()}"}`],
    });
    expect(await ranged('_id', { after: OID2.toHexString() })).toEqual({ bound: null, rows: [] });
  });

  it('takes the bound over the whole collection, whatever the filters keep', async () => {
    expect(await ranged('at', {}, { note: { eq: ['a'] } })).toEqual({
      bound: '2024-01-02T00:00:00.123Z',
      rows: [`{"_id":"${OID1.toHexString()}","at":"2024-01-01T00:00:00.001Z"}`],
    });
  });

  it('subtracts the lag from a Date bound, in milliseconds', async () => {
    expect((await ranged('at', { lagSeconds: 60 })).bound).toBe('2024-01-01T23:59:00.123Z');
    expect(await ranged('at', { lagSeconds: 60, after: '2024-01-01T23:59:00.123Z' })).toEqual({ bound: null, rows: [] });
    expect((await ranged('at', { lagSeconds: 60, after: '2024-01-01T23:59:00.122Z' })).bound).toBe('2024-01-01T23:59:00.123Z');
  });

  it('bounds by values of the cursor type only: a stray string, which sorts above every number, is not the maximum', async () => {
    await db.db.collection('events').insertOne({ _id: new ObjectId('65f0c0ffee0000000000a0ff'), seq: 'zzz' });
    try {
      expect((await ranged('seq')).bound).toBe('9223372036854775807');
    } finally {
      await db.db.collection('events').deleteOne({ seq: 'zzz' });
    }
  });

  it('reads the documents at the point in time the bound was taken at (replica set), or as they are then (standalone)', async () => {
    const late = new ObjectId('65f0c0ffee0000000000a0aa');
    const insert = await insertOnCue(db.name, 'events', late.toHexString(), '2024-01-01T12:00:00.000Z');
    try {
      const read = await ranged('at', { after: '2024-01-01T00:00:00.001Z' }, undefined, () => insert.cue());
      expect(read.bound).toBe('2024-01-02T00:00:00.123Z');
      const lateRow = `{"_id":"${late.toHexString()}","at":"2024-01-01T12:00:00.000Z"}`;
      const bounded = `{"_id":"${OID2.toHexString()}","at":"2024-01-02T00:00:00.123Z"}`;
      // Inserted after the bound, below it: outside a snapshot read; a standalone server reads it
      // now, and a write a moment later would have been missed.
      expect(read.rows).toEqual(replicaSet ? [bounded] : [bounded, lateRow]);
    } finally {
      await insert.close();
      await db.db.collection('events').deleteOne({ _id: late });
    }
  });
});
