import { Int32, type Document } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { FetCode } from '../../errors/fet-code.js';
import type { ConnectorSession, RowBatch, TableInfo } from '../shared/engine-connector.js';
import { type ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { MongoDbConnector } from './mongodb.connector.js';
import { fakeCollection, fakeMongoDatasource } from './testing/fake-mongo-datasource.js';
import { BATCH_DOCS } from './mongodb-query.js';
import { type FakeMongoServer, startFakeMongoServer } from './testing/fake-mongo-server.js';

const MIB = 1024 * 1024;
const WIDE_CHARS = 2_000_000;

const datasource = fakeMongoDatasource;

const wideValue = (i: number): string => String(i % 10).repeat(WIDE_CHARS);
const WIDE: Document[] = Array.from({ length: 120 }, (_, i) => ({ _id: new Int32(i + 1), v: wideValue(i + 1) }));
const NARROW: Document[] = Array.from({ length: 3_000 }, (_, i) => ({ _id: new Int32(i + 1), sku: `SKU-${i + 1}` }));
const HUGE: Document[] = [
  { _id: new Int32(1), v: 'small' },
  { _id: new Int32(2), v: 'x'.repeat(4 * MIB) },
  { _id: new Int32(3), v: 'after' },
];

const budget = (batchBytes: number, remainingBytes = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows: 2_000,
  remainingBytes: () => remainingBytes,
});

describe('MongoDbSession read budget', () => {
  let server: FakeMongoServer | undefined;
  let session: ConnectorSession | undefined;

  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = server = undefined;
  });

  const open = async (
    collections: Record<string, readonly Document[]>,
  ): Promise<{ server: FakeMongoServer; session: ConnectorSession }> => {
    server = await startFakeMongoServer({
      collections: Object.fromEntries(Object.entries(collections).map(([name, docs]) => [name, { docs }])),
    });
    session = await new MongoDbConnector().open(datasource(server.port), { connectTimeoutMs: 3_000 });
    return { server, session };
  };
  const discovered = async (s: ConnectorSession, key: string): Promise<TableInfo> =>
    (await s.discover(null, new AbortController().signal)).tables.get(key)!;
  /** `_id` and `v` as discovery lists them, without sampling 2 MB documents first. */
  const WIDE_TABLE: TableInfo = fakeCollection('wide', [
    ['_id', 'int'],
    ['v', 'string'],
  ]);

  const readAll = async (s: ConnectorSession, table: TableInfo, b?: ReadBudget): Promise<RowBatch[]> => {
    const batches: RowBatch[] = [];
    for await (const batch of s.readRows({ table, columns: table.columns, ...(b ? { budget: b } : {}) }, new AbortController().signal))
      batches.push(batch);
    return batches;
  };
  /** The getMores on `collection` sent after the first `since` commands (discovery samples with its own). */
  const getMores = (fake: FakeMongoServer, collection: string, since: number) =>
    fake.commands.slice(since).filter((cmd) => Object.keys(cmd)[0] === 'getMore' && cmd.collection === collection);

  it('asks for as many 2 MB documents per getMore as fit the byte budget, and delivers every value whole', async () => {
    const { server, session } = await open({ wide: WIDE });
    const since = server.commands.length;
    const batches = await readAll(session, WIDE_TABLE, budget(4 * MIB));
    const rows = batches.flatMap((b) => JSON.parse(`[${b.json.toString('utf8')}]`) as { _id: number; v: string }[]);
    expect(rows.map((r) => r._id)).toEqual(WIDE.map((_, i) => i + 1));
    for (const row of rows) expect(row.v === wideValue(row._id)).toBe(true);

    // The find asks for BATCH_DOCS (the server stops its batch at 16 MiB: 8 documents); every
    // getMore then asks for the two that fit 4 MiB.
    const find = server.named('find').find((cmd) => cmd.find === 'wide' && cmd.limit === undefined)!;
    expect(find.batchSize).toBe(BATCH_DOCS);
    const sizes = getMores(server, 'wide', since).map((cmd) => cmd.batchSize as number);
    expect(sizes).toHaveLength((120 - 8) / 2);
    for (const size of sizes) expect(size * WIDE_CHARS).toBeLessThanOrEqual(4 * MIB);
  });

  it('keeps BATCH_DOCS per getMore for small documents', async () => {
    const { server, session } = await open({ narrow: NARROW });
    const narrow = await discovered(session, 'narrow');
    const since = server.commands.length;
    const batches = await readAll(session, narrow);
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(NARROW.length);
    expect(getMores(server, 'narrow', since).map((cmd) => cmd.batchSize)).toEqual([BATCH_DOCS, BATCH_DOCS]);
  });

  it('fails a document larger than what the result may still hold before decoding it; the session stays usable', async () => {
    const { server, session } = await open({ huge: HUGE, narrow: NARROW });
    const error = await readAll(session, await discovered(session, 'huge'), budget(4 * MIB, MIB)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValueTooLargeError);
    expect(error).toMatchObject({ code: FetCode.ResultTooLarge });
    expect((error as Error).message).toContain(`table 'huge'`);
    expect((error as Error).message).toContain(`(${MIB} bytes)`);
    // The whole collection came in the first batch: no cursor was left open on the server.
    expect(server.named('killCursors')).toHaveLength(0);
    const batches = await readAll(session, await discovered(session, 'narrow'));
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(NARROW.length);
  });
});
