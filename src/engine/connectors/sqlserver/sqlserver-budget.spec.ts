import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetCode } from '../../errors/fet-code.js';
import { ByteBatcher } from '../shared/byte-batcher.js';
import type { RowBatch } from '../shared/engine-connector.js';
import { ValueTooLargeError, type ReadBudget } from '../shared/read-budget.js';
import { closePool, ConnectionWatch, connectPool, poolConfig, type ConnectedPool } from './sqlserver-client.js';
import { SqlServerRowStream } from './sqlserver-row-stream.js';
import type { SqlServerSession } from './sqlserver-session.js';
import { tlsOptions } from './sqlserver-ssl.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { column, fakeDatasource, tableOf } from './testing/fake-datasource.js';
import { startFakeTdsServer, type FakeAnswer, type FakeTdsServer, type FakeValue } from './testing/fake-tds-server.js';
import { countRows } from '../testing/batch-reading.js';

/**
 * Batches bounded by bytes, and values too large for what the result may still hold, through the
 * real mssql/tedious client: (max) columns arrive as PLP chunks, as SQL Server sends them.
 */
const ROWS = 3_000;
const BIG_ROWS = 330;
const BIG_CHARS = 50_000;
const DOCS = tableOf('dbo', 'docs', [column('id', 'int'), column('body', 'nvarchar(max)')], ['id']);
const SMALL = tableOf('dbo', 'small', [column('id', 'int')], ['id']);

function* docs(chars: number, count = ROWS): Generator<FakeValue[]> {
  for (let id = 1; id <= count; id++) yield [id, 'x'.repeat(chars)];
}

/** `docs` holds 330 rows of 50,000 characters; `notes` 3,000 rows of 10; `huge` has one value of 300,000 on row 3. */
function answer(sql: string): FakeAnswer {
  if (sql.includes('@@SPID')) return { columns: [{ name: '', type: 'int' }], rows: [[57]] };
  const columns = [
    { name: 'id', type: 'int' as const },
    { name: 'body', type: 'nvarchar(max)' as const },
  ];
  if (sql.includes('FROM [dbo].[docs]')) return { columns, rows: docs(BIG_CHARS, BIG_ROWS) };
  if (sql.includes('FROM [dbo].[notes]')) return { columns, rows: docs(10) };
  if (sql.includes('FROM [dbo].[huge]'))
    return {
      columns,
      rows: [
        [1, 'a'],
        [2, 'b'],
        [3, 'h'.repeat(300_000)],
        [4, 'd'],
      ],
    };
  if (sql.includes('FROM [dbo].[small]')) return { columns: [{ name: 'id', type: 'int' }], rows: [[1], [2]] };
  return { columns: [{ name: 'n', type: 'int' }], rows: [] };
}

const budget = (batchBytes: number, remaining = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows: 2_000,
  remainingBytes: () => remaining,
});

describe('SqlServerRowStream closes batches by bytes (fake TDS server)', () => {
  let server: FakeTdsServer;
  let connected: ConnectedPool;

  beforeAll(async () => {
    server = await startFakeTdsServer({ answer });
    const watch = new ConnectionWatch(false);
    connected = await connectPool(poolConfig(fakeDatasource(server.port), tlsOptions({ mode: null }), 5_000, watch), watch, 5_000);
  });

  afterAll(async () => {
    await closePool(connected, 2_000);
    await server?.close();
  });

  const batchSizes = async (table: string, limits: { batchRows: number; batchBytes: number }): Promise<number[]> => {
    const batcher = new ByteBatcher({ ...limits, remainingBytes: () => Number.MAX_SAFE_INTEGER }, table);
    const stream = new SqlServerRowStream(connected.pool, { text: `SELECT [id], [body] FROM [dbo].[${table}]`, params: [] }, batcher);
    const sizes: number[] = [];
    for (let rows = await stream.next(); rows.length > 0; rows = await stream.next()) sizes.push(rows.length);
    return sizes;
  };

  it('hands a batch on once its rows hold batchBytes: few rows when values are big', async () => {
    const sizes = await batchSizes('docs', { batchRows: 2_000, batchBytes: 512 * 1024 });
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(BIG_ROWS);
    // ~50 KB a row: the batch closes on the 11th row (10 rows hold 500 KB).
    expect(sizes).toEqual(Array.from({ length: BIG_ROWS / 11 }, () => 11));
  });

  it('hands a batch on at batchRows when values are small, with the same byte bound', async () => {
    const sizes = await batchSizes('notes', { batchRows: 2_000, batchBytes: 512 * 1024 });
    expect(sizes).toEqual([2_000, 1_000]);
  });
});

describe('SqlServerSession with a read budget (fake TDS server)', () => {
  const connector = new SqlServerConnector();
  let server: FakeTdsServer;
  let session: SqlServerSession;

  beforeAll(async () => {
    server = await startFakeTdsServer({ answer });
    session = (await connector.open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
  });

  afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  const read = async (name: string, readBudget?: ReadBudget): Promise<RowBatch[]> => {
    const table = tableOf('dbo', name, DOCS.columns, ['id']);
    const batches: RowBatch[] = [];
    for await (const batch of session.readRows({ table, columns: table.columns, budget: readBudget }, new AbortController().signal))
      batches.push(batch);
    return batches;
  };
  const readSmall = async () => await countRows(session.readRows({ table: SMALL, columns: SMALL.columns }, new AbortController().signal));

  it('uses the request budget: small rows in batches of about batchBytes', async () => {
    // A row of `notes` counts 18 bytes (an int, 10 characters): 2 KiB closes a batch on its 114th row.
    const batches = await read('notes', budget(2_048));
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(ROWS);
    expect(Math.max(...batches.map((b) => b.rowCount))).toBe(114);
  });

  it('fails the read with ValueTooLargeError (FET-1101) on a value larger than what the result may still hold, before rendering it', async () => {
    const attentions = server.attentions;
    const seen: RowBatch[] = [];
    const reading = (async () => {
      for await (const batch of session.readRows(
        { table: tableOf('dbo', 'huge', DOCS.columns, ['id']), columns: DOCS.columns, budget: budget(1 << 20, 100_000) },
        new AbortController().signal,
      )) {
        seen.push(batch);
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(ValueTooLargeError);
    await expect(reading).rejects.toMatchObject({ code: FetCode.ResultTooLarge, message: expect.stringContaining("table 'huge'") });
    // Rows 1 and 2 were in the refused row's batch: nothing was handed on.
    expect(seen).toEqual([]);
    // The statement was cancelled on the server; the session stays usable.
    expect(server.attentions).toBe(attentions + 1);
    expect(server.running).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('reads the same value when the budget can hold it', async () => {
    const batches = await read('huge', budget(1 << 20, 1_000_000));
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(4);
  });
});

describe('SqlServerSession refusing a row while it arrives (fake TDS server)', () => {
  it('fails with ValueTooLargeError before a too-large value has arrived whole, and cuts the connection', async () => {
    // 3 MB of a 6 MB value (3M characters as UTF-16), then nothing: only an early refusal ends this read.
    const server = await startFakeTdsServer({
      answer: (sql) =>
        sql.includes('FROM [dbo].[docs]')
          ? {
              columns: [
                { name: 'id', type: 'int' },
                { name: 'body', type: 'nvarchar(max)' },
              ],
              rows: [[1, 'h'.repeat(3_000_000)]],
              stallAfterBytes: 3_000_000,
            }
          : answer(sql),
    });
    const session = (await new SqlServerConnector().open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
    try {
      const started = Date.now();
      const reading = countRows(
        session.readRows({ table: DOCS, columns: DOCS.columns, budget: budget(1 << 20, 100_000) }, new AbortController().signal),
      );
      await expect(reading).rejects.toBeInstanceOf(ValueTooLargeError);
      await expect(reading).rejects.toMatchObject({ code: FetCode.ResultTooLarge, message: expect.stringContaining("table 'docs'") });
      expect(Date.now() - started).toBeLessThan(2_000);
      await expect(
        countRows(session.readRows({ table: SMALL, columns: SMALL.columns }, new AbortController().signal)),
      ).rejects.toMatchObject({
        message: 'Connection lost: a value too large for the result was arriving; connection closed',
      });
      const closing = Date.now();
      await session.close();
      expect(Date.now() - closing).toBeLessThan(500);
    } finally {
      await session.close();
      await server.close();
    }
  });
});
