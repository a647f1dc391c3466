import { Int32, Long, type Document } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import type { CursorRange } from '../../incremental/cursor-range.js';
import type { ConnectorSession, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import { BATCH_DOCS } from './mongodb-query.js';
import { MongoDbConnector } from './mongodb.connector.js';
import { fakeCollection, fakeMongoDatasource } from './testing/fake-mongo-datasource.js';
import { CLUSTER_TIME, type FakeMongoOptions, type FakeMongoServer, startFakeMongoServer } from './testing/fake-mongo-server.js';
import { countRows } from '../testing/batch-reading.js';

/**
 * Ranged reads through the real driver against the wire-protocol fake: the bound query, the
 * snapshot session its read and the documents' read share on a replica set (none on a standalone
 * server), the bound told before any document, and the session ended whatever happens.
 * test/integration/mongodb-incremental.spec.ts runs them against a real server.
 */
const D1 = new Date('2026-01-01T00:00:00.000Z');
const D2 = new Date('2026-01-02T00:00:00.000Z');
const D3 = new Date('2026-01-03T00:00:00.250Z');
/** The fake neither filters nor sorts: the bound query (limit 1) gets the first document, the latest. */
const EVENTS: Document[] = [
  { _id: new Int32(3), at: D3, seq: Long.fromNumber(30) },
  { _id: new Int32(1), at: D1, seq: Long.fromNumber(10) },
  { _id: new Int32(2), at: D2, seq: Long.fromNumber(20) },
];
const MANY: Document[] = Array.from({ length: 2_500 }, (_, i) => ({ _id: new Int32(i + 1), at: new Date(D1.getTime() + i) }));
const REPLICA_SET = { hello: { setName: 'rs0', hosts: ['127.0.0.1:27017'] } };

let server: FakeMongoServer | undefined;
let session: ConnectorSession | undefined;
afterEach(async () => {
  await session?.close();
  await server?.close();
  session = server = undefined;
});

async function open(options: FakeMongoOptions = {}): Promise<{ server: FakeMongoServer; session: ConnectorSession; table: TableInfo }> {
  server = await startFakeMongoServer({ collections: { events: { docs: EVENTS }, many: { docs: MANY }, none: { docs: [] } }, ...options });
  session = await new MongoDbConnector().open(fakeMongoDatasource(server.port), { connectTimeoutMs: 3_000 });
  const table = (await session.discover(null, new AbortController().signal)).tables.get('events')!;
  return { server, session, table };
}

const rangeOn = (table: TableInfo, name: string, extra: Partial<CursorRange> = {}): CursorRange => {
  const column = table.columns.find((c) => c.name === name)!;
  return { column, kind: new MongoDbConnector().cursorKind(column)!, ...extra };
};
const ranged = (table: TableInfo, bounds: (string | null)[], range: CursorRange): TableReadRequest => ({
  table,
  columns: table.columns,
  range,
  onRangeBound: (upper) => bounds.push(upper),
});

const boundQuery = (s: FakeMongoServer) =>
  s.named('find').find((cmd) => cmd.limit === 1 && cmd.singleBatch === true && (cmd.filter as Document | undefined)?.$and?.[0]);
const rangeQuery = (s: FakeMongoServer) =>
  s.named('find').find((cmd) => cmd.limit === undefined && Array.isArray((cmd.filter as Document | undefined)?.$and));
/** Our own hello (the monitors' go to admin): whether the server takes snapshot reads. */
const hellos = (s: FakeMongoServer) => s.named('hello').filter((cmd) => cmd.$db === 'shop');
/**
 * The server session the next plain read runs in. The driver pools server sessions and hands out
 * the last one returned first: an ended snapshot session's is the next one used, while one never
 * ended stays out of the pool (until the client closes, which ends every session still active).
 */
async function nextSessionId(s: FakeMongoServer, session: ConnectorSession, table: TableInfo): Promise<string> {
  const sent = s.commands.length;
  await countRows(session.readRows({ table, columns: table.columns }, new AbortController().signal));
  return lsidOf(s.commands.slice(sent).find((cmd) => cmd.find === table.name));
}
const lsidOf = (cmd: Document | undefined) => JSON.stringify(cmd?.lsid);

/** A collection the fake keeps empty, with a cursor field of its own (discovery would find none). */
const NONE: TableInfo = fakeCollection('none', [
  ['_id', 'int'],
  ['at', 'date'],
]);

describe('MongoDB ranged reads on a standalone server', () => {
  it('takes the bound with one sorted, limited find, tells it before the first document, then reads the range', async () => {
    const { server, session, table } = await open();
    const bounds: (string | null)[] = [];
    const request = ranged(table, bounds, rangeOn(table, 'at', { after: D1.toISOString() }));
    const iterator = session.readRows(request, new AbortController().signal)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(bounds).toEqual(['2026-01-03T00:00:00.250Z']);
    expect(boundQuery(server)).toMatchObject({
      find: 'events',
      filter: { $and: [{ at: { $type: 'date' } }, { at: { $gt: D1 } }] },
      sort: { at: -1 },
      limit: 1,
      projection: { at: 1, _id: 0 },
    });
    expect(rangeQuery(server)).toMatchObject({
      find: 'events',
      filter: { $and: [{ at: { $gt: D1 } }, { at: { $lte: D3 } }] },
      sort: { _id: 1 },
    });
    expect(server.commands.indexOf(boundQuery(server)!)).toBeLessThan(server.commands.indexOf(rangeQuery(server)!));
    expect(boundQuery(server)).not.toHaveProperty('readConcern');
    expect(rangeQuery(server)).not.toHaveProperty('readConcern');
    expect(first.value?.rowCount).toBe(3);
    expect((await iterator.next()).done).toBe(true);
  });

  it('asks whether the server takes snapshot reads once per session', async () => {
    const { server, session, table } = await open();
    await countRows(session.readRows(ranged(table, [], rangeOn(table, 'seq')), new AbortController().signal));
    await countRows(session.readRows(ranged(table, [], rangeOn(table, 'seq')), new AbortController().signal));
    expect(hellos(server)).toHaveLength(1);
    expect(server.named('find').filter((cmd) => cmd.limit === 1 && (cmd.sort as Document)?.seq === -1)).toHaveLength(2);
  });

  it('tells a null bound and reads nothing when no document lies above the mark', async () => {
    const { server, session } = await open();
    const bounds: (string | null)[] = [];
    const range: CursorRange = { column: NONE.columns[1], kind: 'timestamptz', after: D1.toISOString() };
    expect(await countRows(session.readRows(ranged(NONE, bounds, range), new AbortController().signal))).toBe(0);
    expect(bounds).toEqual([null]);
    expect(boundQuery(server)).toMatchObject({ find: 'none' });
    expect(rangeQuery(server)).toBeUndefined();
  });

  it('tells a null bound when the document found has no cursor value', async () => {
    const { server, session, table } = await open({
      collections: { events: { docs: [{ _id: new Int32(2) }, { _id: new Int32(1), at: D1 }] } },
    });
    const bounds: (string | null)[] = [];
    expect(await countRows(session.readRows(ranged(table, bounds, rangeOn(table, 'at')), new AbortController().signal))).toBe(0);
    expect(bounds).toEqual([null]);
    expect(rangeQuery(server)).toBeUndefined();
  });

  it('refuses a starting value that is not of the cursor kind before sending anything', async () => {
    const { server, session, table } = await open();
    const sent = server.commands.length;
    await expect(
      countRows(session.readRows(ranged(table, [], rangeOn(table, 'seq', { from: '12.5' })), new AbortController().signal)),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: 'Reading collection "events" failed: "12.5" is not a 64-bit integer',
    });
    expect(server.commands.slice(sent).filter((cmd) => Object.keys(cmd)[0] !== 'hello')).toEqual([]);
  });
});

describe('MongoDB ranged reads on a replica set (snapshot session)', () => {
  it('reads the bound and the documents at one cluster time, in one session, then ends it', async () => {
    const { server, session } = await open({ ...REPLICA_SET });
    const many = (await session.discover(null, new AbortController().signal)).tables.get('many')!;
    const bounds: (string | null)[] = [];
    expect(await countRows(session.readRows(ranged(many, bounds, rangeOn(many, 'at')), new AbortController().signal))).toBe(MANY.length);
    expect(bounds).toEqual([MANY[0].at.toISOString()]);
    const bound = boundQuery(server)!;
    const later = server.commands.slice(server.commands.indexOf(bound) + 1);
    const read = later.find((cmd) => cmd.find === 'many');
    expect(bound).toMatchObject({ find: 'many', readConcern: { level: 'snapshot' } });
    expect(bound.readConcern).not.toHaveProperty('atClusterTime');
    expect(read).toMatchObject({
      filter: { at: { $lte: MANY[0].at } },
      sort: { _id: 1 },
      readConcern: { level: 'snapshot', atClusterTime: CLUSTER_TIME },
    });
    const getMores = later.filter((cmd) => Object.keys(cmd)[0] === 'getMore');
    expect(getMores).toHaveLength(2);
    for (const cmd of [read, ...getMores]) expect(lsidOf(cmd)).toBe(lsidOf(bound));
    expect(await nextSessionId(server, session, many)).toBe(lsidOf(bound));
  });

  it('ends the session after the server cursor is killed when the consumer stops early', async () => {
    const { server, session } = await open({ ...REPLICA_SET });
    const many = (await session.discover(null, new AbortController().signal)).tables.get('many')!;
    for await (const batch of session.readRows(ranged(many, [], rangeOn(many, 'at')), new AbortController().signal)) {
      expect(batch.rowCount).toBeGreaterThan(0);
      break;
    }
    const bound = boundQuery(server);
    expect(server.named('killCursors')).toHaveLength(1);
    expect(lsidOf(server.named('killCursors')[0])).toBe(lsidOf(bound));
    expect(await nextSessionId(server, session, many)).toBe(lsidOf(bound));
  });

  it('ends the session when the read fails, and reports the failure', async () => {
    const { server, session, table } = await open({
      ...REPLICA_SET,
      fail: (cmd) =>
        cmd.find === 'events' && cmd.limit === undefined && cmd.filter?.$and
          ? { ok: 0, errmsg: 'Read timestamp is older than the oldest available timestamp.', code: 239, codeName: 'SnapshotTooOld' }
          : undefined,
    });
    const bounds: (string | null)[] = [];
    await expect(
      countRows(session.readRows(ranged(table, bounds, rangeOn(table, 'seq', { after: '10' })), new AbortController().signal)),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: 'events',
      message: 'Reading collection "events" failed: Read timestamp is older than the oldest available timestamp. (SnapshotTooOld)',
    });
    expect(bounds).toEqual(['30']);
    const bound = boundQuery(server);
    expect(await nextSessionId(server, session, table)).toBe(lsidOf(bound));
  });

  it('ends the session when aborted while a getMore is in flight, after the cursor is killed', async () => {
    let held = 0;
    // Only the ranged read's first getMore: the plain read afterwards must get its documents.
    const { server, session } = await open({
      ...REPLICA_SET,
      holdGetMore: (cmd) => cmd.collection === 'many' && cmd.batchSize === BATCH_DOCS && ++held === 1,
    });
    const many = (await session.discover(null, new AbortController().signal)).tables.get('many')!;
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const reading = countRows(session.readRows(ranged(many, [], rangeOn(many, 'at')), controller.signal));
    await expect
      .poll(() => server.named('getMore').filter((cmd) => cmd.collection === 'many' && cmd.batchSize === BATCH_DOCS).length)
      .toBe(1);
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    const bound = boundQuery(server);
    expect(server.named('killCursors').map(lsidOf)).toEqual([lsidOf(bound)]);
    server.releaseGetMore();
    expect(await nextSessionId(server, session, many)).toBe(lsidOf(bound));
  });

  it('reads without a snapshot on a replica set older than 5.0', async () => {
    const { server, session, table } = await open({ hello: { ...REPLICA_SET.hello, maxWireVersion: 12 } });
    expect(await countRows(session.readRows(ranged(table, [], rangeOn(table, 'seq')), new AbortController().signal))).toBe(3);
    expect(boundQuery(server)).not.toHaveProperty('readConcern');
  });
});
