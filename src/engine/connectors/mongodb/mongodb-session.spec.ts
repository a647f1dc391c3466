import { Decimal128, Int32, Long, ObjectId, type Document } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { DatasourceQueryError } from '../../errors/datasource-errors.js';
import type { ColumnInfo, ConnectorSession, RowBatch, RowFrame, TableInfo } from '../shared/engine-connector.js';
import { allBatches, expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import { MongoDbConnector } from './mongodb.connector.js';
import { fakeMongoDatasource } from './testing/fake-mongo-datasource.js';
import { BATCH_DOCS } from './mongodb-query.js';
import { describeError, RENDER_CHUNK_CHARS } from './mongodb-session.js';
import { type FakeMongoOptions, type FakeMongoServer, startFakeMongoServer } from './testing/fake-mongo-server.js';

/**
 * The session through the real driver against a wire-protocol fake (no MongoDB server can run
 * here): commands as the server receives them, cursor batches, getMore and killCursors.
 */
const datasource = fakeMongoDatasource;

/** Documents of ~150 bytes of JSON each: a 48 KiB chunk holds a few hundred, a batch holds 1000. */
const ITEMS: Document[] = Array.from({ length: 2_500 }, (_, i) => ({
  _id: new Int32(i + 1),
  sku: `SKU-${String(i + 1).padStart(5, '0')}`,
  price: Decimal128.fromString(`${i}.50`),
  stock: Long.fromNumber(i * 1_000_000_007),
  at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
  owner: { id: new ObjectId('65f0c0ffee0000000000abcd'), city: 'Lisbon' },
  note: i % 2 === 0 ? null : 'odd',
}));

let server: FakeMongoServer | undefined;
let session: ConnectorSession | undefined;
afterEach(async () => {
  await session?.close();
  await server?.close();
  session = undefined;
  server = undefined;
});

async function open(options: FakeMongoOptions = {}): Promise<{ server: FakeMongoServer; session: ConnectorSession }> {
  server = await startFakeMongoServer({
    collections: { items: { docs: ITEMS }, empty: { docs: [] }, totals: { type: 'view', docs: [{ total: 1 }] } },
    ...options,
  });
  session = await new MongoDbConnector().open(datasource(server.port), { connectTimeoutMs: 3_000 });
  return { server, session };
}

const table = async (s: ConnectorSession, key: string): Promise<TableInfo> => {
  const info = (await s.discover(null, new AbortController().signal)).tables.get(key);
  if (!info) throw new Error(`${key} not discovered`);
  return info;
};
const columns = (info: TableInfo, ...names: string[]) => names.map((name) => info.columns.find((c) => c.name === name)!);

describe('MongoDbSession through the driver', () => {
  it('discovers collections and views with sampled nested fields', async () => {
    const { session } = await open();
    const snapshot = await session.discover(null, new AbortController().signal);
    expect([...snapshot.tables.keys()]).toEqual(['empty', 'items', 'totals']);
    expect(snapshot.tables.get('items')?.columns.map((c) => c.name)).toEqual([
      '_id',
      'sku',
      'price',
      'stock',
      'at',
      'owner',
      'owner.id',
      'owner.city',
      'note',
    ]);
    expect(snapshot.tables.get('items')?.columns.find((c) => c.name === 'price')?.dataType).toBe('decimal');
    expect(snapshot.tables.get('empty')?.columns.map((c) => c.name)).toEqual(['_id']);
    expect(snapshot.tables.get('totals')).toMatchObject({ columns: [{ name: 'total' }], primaryKey: [] });
  });

  it('sends one find with the filter, the exact projection, _id order and the batch size', async () => {
    const { server, session } = await open();
    const items = await table(session, 'items');
    const reading = session.readRows(
      { table: items, columns: columns(items, 'owner.city', 'sku'), filters: { at: { gte: ['2026-01-01'] }, _id: { ne: [3] } } },
      new AbortController().signal,
    );
    for await (const _ of reading) break;
    const find = server.named('find').find((cmd) => cmd.find === 'items' && cmd.limit === undefined);
    expect(find).toMatchObject({
      find: 'items',
      filter: { at: { $gte: new Date('2026-01-01T00:00:00.000Z') }, _id: { $nin: [3, null] } },
      projection: { 'owner.city': 1, sku: 1, _id: 0 },
      sort: { _id: 1 },
      batchSize: BATCH_DOCS,
      $db: 'shop',
    });
    expect(find).not.toHaveProperty('maxTimeMS');
    expect(find).not.toHaveProperty('noCursorTimeout');
  });

  it('streams every document in ~48 KiB chunks, values mapped, keys in request order', async () => {
    const { server, session } = await open();
    const items = await table(session, 'items');
    const chunks: RowBatch[] = [];
    for await (const chunk of session.readRows(
      { table: items, columns: columns(items, 'sku', '_id', 'price', 'stock', 'at', 'owner.id', 'note') },
      new AbortController().signal,
    )) {
      chunks.push(chunk);
    }
    expect(chunks.reduce((n, c) => n + c.rowCount, 0)).toBe(ITEMS.length);
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.json.length).toBeGreaterThanOrEqual(RENDER_CHUNK_CHARS);
      expect(chunk.json.length).toBeLessThan(RENDER_CHUNK_CHARS + 400);
    }
    const rows = JSON.parse(`[${chunks.map((c) => c.json.toString('utf8')).join(',')}]`) as Record<string, unknown>[];
    expect(rows[1]).toEqual({
      sku: 'SKU-00002',
      _id: 2,
      price: '1.50',
      stock: 1_000_000_007,
      at: '2026-01-01T00:01:00.000Z',
      'owner.id': '65f0c0ffee0000000000abcd',
      note: 'odd',
    });
    expect(Object.keys(rows[0])).toEqual(['sku', '_id', 'price', 'stock', 'at', 'owner.id', 'note']);
    expect(chunks.map((c) => c.json.toString('utf8')).join(',')).toContain('"stock":2499000017493');
    expect(rows.map((row) => row._id)).toEqual(ITEMS.map((_, i) => i + 1));
    const find = server.commands.find((cmd) => cmd.find === 'items' && cmd.limit === undefined)!;
    expect(find).toBeDefined();
    // 2 500 documents in batches of 1 000: the find and two getMores, the cursor then exhausted.
    expect(server.named('getMore').filter((cmd) => cmd.collection === 'items' && cmd.batchSize === BATCH_DOCS)).toHaveLength(2);
    expect(server.named('killCursors')).toHaveLength(0);
  });

  it("frames the documents as the request asks: NDJSON lines holding the JSON frame's rows, across chunks", async () => {
    const notes: Document[] = [
      { _id: new Int32(1), text: 'line\n"two" \\ \u0001', empty: '' },
      { _id: new Int32(2), text: null, empty: '' },
      { _id: new Int32(3) },
    ];
    const { session } = await open({ collections: { items: { docs: ITEMS }, notes: { docs: notes } } });
    const read = (info: TableInfo, projection: readonly ColumnInfo[], rowFrame?: RowFrame) =>
      allBatches(session.readRows({ table: info, columns: projection, rowFrame }, new AbortController().signal));
    for (const [key, projection] of [
      ['items', (info: TableInfo) => info.columns],
      ['notes', (info: TableInfo) => info.columns],
      ['items', () => []],
    ] as const) {
      const info = await table(session, key);
      const framed = await read(info, projection(info), ndjsonFrame('mongo', key));
      if (key === 'items') expect(framed.length).toBeGreaterThan(1);
      expectNdjsonLike(framed, await read(info, projection(info)), 'mongo', key);
    }
  });

  it('asks the server for the next batch only when the consumer has used up the previous one', async () => {
    const { server, session } = await open();
    const items = await table(session, 'items');
    // Discovery's $sample used getMores of its own.
    const before = server.named('getMore').length;
    const iterator = session.readRows({ table: items, columns: items.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    let rows = 0;
    while (rows < BATCH_DOCS - 300) rows += (await iterator.next()).value!.rowCount;
    expect(server.named('getMore')).toHaveLength(before);
    while (rows <= BATCH_DOCS) rows += (await iterator.next()).value!.rowCount;
    expect(server.named('getMore')).toHaveLength(before + 1);
    await iterator.return!();
  });

  it('kills the server cursor when the consumer stops early', async () => {
    const { server, session } = await open();
    const items = await table(session, 'items');
    for await (const _ of session.readRows({ table: items, columns: columns(items, '_id', 'sku', 'owner') }, new AbortController().signal))
      break;
    const find = server.commands.find((cmd) => cmd.find === 'items' && cmd.limit === undefined)!;
    expect(find).toBeDefined();
    expect(server.named('killCursors')).toHaveLength(1);
    expect(server.named('killCursors')[0]).toMatchObject({ killCursors: 'items' });
  });

  it('throws the signal reason and kills the cursor on an abort between chunks', async () => {
    const { server, session } = await open();
    const items = await table(session, 'items');
    const controller = new AbortController();
    const read = async () => {
      for await (const _ of session!.readRows({ table: items, columns: items.columns }, controller.signal))
        controller.abort(new Error('job cancelled'));
    };
    await expect(read()).rejects.toThrow('job cancelled');
    await expect.poll(() => server.named('killCursors').length).toBe(1);
  });

  it('throws the signal reason promptly when aborted while a getMore is in flight', async () => {
    const { server, session } = await open({ holdGetMore: (cmd) => cmd.batchSize === BATCH_DOCS });
    const items = await table(session, 'items');
    const controller = new AbortController();
    let rows = 0;
    const read = (async () => {
      for await (const chunk of session!.readRows({ table: items, columns: items.columns }, controller.signal)) rows += chunk.rowCount;
    })();
    const readGetMores = () => server.named('getMore').filter((cmd) => cmd.batchSize === BATCH_DOCS).length;
    await expect.poll(readGetMores).toBe(1);
    const started = Date.now();
    controller.abort(new Error('deadline'));
    await expect(read).rejects.toThrow('deadline');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(rows).toBeLessThanOrEqual(BATCH_DOCS);
    await expect.poll(() => server.named('killCursors').length).toBe(1);
  });

  it('throws an already aborted signal reason before sending anything', async () => {
    const { server, session } = await open();
    const items = await table(session, 'items');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const finds = server.named('find').length;
    await expect(async () => {
      for await (const _ of session!.readRows({ table: items, columns: items.columns }, controller.signal)) break;
    }).rejects.toThrow('stop');
    expect(server.named('find')).toHaveLength(finds);
  });

  it('reports a server error as a query error without the command it echoes', async () => {
    const { session } = await open({
      failures: {
        find: {
          ok: 0,
          errmsg: 'not authorized on shop to execute command { find: "items", filter: { ssn: "123-45-6789" } }',
          code: 13,
          codeName: 'Unauthorized',
        },
      },
    });
    const items = await table(session, 'items');
    const error = await (async () => {
      for await (const _ of session!.readRows({ table: items, columns: items.columns }, new AbortController().signal)) break;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasourceQueryError);
    expect((error as DatasourceQueryError).message).toBe(
      'Reading collection "items" failed: not authorized on shop to execute command … (Unauthorized)',
    );
    expect((error as DatasourceQueryError).table).toBe('items');
  });

  it('closes idempotently and refuses work afterwards', async () => {
    const { session } = await open();
    const items = await table(session, 'items');
    await Promise.all([session.close(), session.close()]);
    await session.close();
    await expect(session.discover(null, new AbortController().signal)).rejects.toThrow('Session is closed');
    await expect(async () => {
      for await (const _ of session!.readRows({ table: items, columns: items.columns }, new AbortController().signal)) break;
    }).rejects.toThrow('Session is closed');
  });

  it('stops a stream whose session is closed under it', async () => {
    const { session } = await open();
    const items = await table(session, 'items');
    const read = (async () => {
      for await (const _ of session!.readRows({ table: items, columns: items.columns }, new AbortController().signal))
        await session!.close();
    })();
    await expect(read).rejects.toThrow('Session is closed');
  });
});

describe('MongoDB query error messages', () => {
  it('keeps message and code name, never a command echo', () => {
    expect(
      describeError(
        Object.assign(new Error('Executor error during find command :: caused by :: Sort exceeded memory limit'), {
          codeName: 'QueryExceededMemoryLimitNoDiskUseAllowed',
        }),
      ),
    ).toBe('Executor error during find command :: caused by :: Sort exceeded memory limit (QueryExceededMemoryLimitNoDiskUseAllowed)');
    expect(describeError('boom')).toBe('unknown error');
    expect(describeError(new Error('x'.repeat(1000)))).toHaveLength(300);
  });
});
