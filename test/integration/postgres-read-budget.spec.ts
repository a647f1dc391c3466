import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import type pg from 'pg';
import Cursor from 'pg-cursor';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FetCode } from '../../src/engine/errors/fet-code.js';
import type { ConnectorSession, RowBatch } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { FIRST_FETCH_ROWS, type ReadBudget, ValueTooLargeError } from '../../src/engine/connectors/shared/read-budget.js';
import { createTempDatabase, resolvedDatasource, type TempDatabase } from '../helpers/pg-database.js';

const MIB = 1024 * 1024;
/** 32 hex characters repeated: 2,000,000 characters per value. */
const WIDE_REPEAT = 62_500;
const WIDE_BYTES = 32 * WIDE_REPEAT;
const HUGE_BYTES = 64 * MIB;

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
const budget = (batchBytes: number, remainingBytes = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows: 2_000,
  remainingBytes: () => remainingBytes,
});

/** The tables both read paths are tried on: 2 MB rows, many small rows, one 64 MiB value. */
async function budgetFixture(prefix: string, wideRows: number, connector: PostgresConnector) {
  const db = await createTempDatabase(prefix);
  await db.query(`
    CREATE TABLE wide (id int PRIMARY KEY, v text);
    INSERT INTO wide SELECT g, repeat(md5(g::text), ${WIDE_REPEAT}) FROM generate_series(1, ${wideRows}) g;
    CREATE TABLE narrow (id int PRIMARY KEY, label text);
    INSERT INTO narrow SELECT g, md5(g::text) FROM generate_series(1, 10000) g;
    CREATE TABLE huge (id int PRIMARY KEY, v text);
    INSERT INTO huge VALUES (1, 'small'), (2, repeat('x', ${HUGE_BYTES})), (3, 'after');
  `);
  const session = await connector.open(resolvedDatasource(db), { connectTimeoutMs: 5_000 });
  const tables = (await session.discover(['public'], new AbortController().signal)).tables;
  const readAll = async (s: ConnectorSession, key: string, b?: ReadBudget): Promise<RowBatch[]> => {
    const table = tables.get(key)!;
    const batches: RowBatch[] = [];
    for await (const batch of s.readRows({ table, columns: table.columns, ...(b ? { budget: b } : {}) }, new AbortController().signal))
      batches.push(batch);
    return batches;
  };
  return { db, session, readAll };
}

describe('PostgresConnector read budget (cursor path)', () => {
  const connector = new PostgresConnector('cursor');
  let db: TempDatabase;
  let session: ConnectorSession;
  let readAll: Awaited<ReturnType<typeof budgetFixture>>['readAll'];

  beforeAll(async () => {
    ({ db, session, readAll } = await budgetFixture('pg_read_budget', 120, connector));
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  /** Every cursor read: rows asked for and rows returned. */
  const spyFetches = (): { asked: number; got: number }[] => {
    const fetches: { asked: number; got: number }[] = [];
    const read = Cursor.prototype.read;
    vi.spyOn(Cursor.prototype, 'read').mockImplementation(function (this: Cursor, rows: number) {
      const entry = { asked: rows, got: 0 };
      fetches.push(entry);
      return (read.call(this, rows) as Promise<unknown[]>).then((result) => {
        entry.got = result.length;
        return result;
      });
    } as typeof Cursor.prototype.read);
    return fetches;
  };

  it('sizes each fetch of 2 MB rows to the byte budget once their size is known, and delivers every value whole', async () => {
    const fetches = spyFetches();
    const batches = await readAll(session, 'wide', budget(4 * MIB));
    const rows = batches.flatMap((b) => JSON.parse(`[${b.json.toString('utf8')}]`) as { id: number; v: string }[]);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    for (const row of rows) expect(row.v === md5(String(row.id)).repeat(WIDE_REPEAT)).toBe(true);

    // The first fetch knows nothing of the rows; every later one holds about 4 MiB of them.
    expect(fetches[0]).toEqual({ asked: FIRST_FETCH_ROWS, got: FIRST_FETCH_ROWS });
    for (const { asked, got } of fetches.slice(1)) {
      expect(asked * WIDE_BYTES).toBeLessThanOrEqual(4 * MIB);
      expect(asked).toBeGreaterThanOrEqual(1);
      expect(got).toBeLessThanOrEqual(asked);
    }
    expect(fetches.reduce((n, f) => n + f.got, 0)).toBe(120);
    // One row first, then two at a time: 119 rows in 60 fetches, the last one short (it ends the read).
    expect(FIRST_FETCH_ROWS).toBe(1);
    expect(fetches).toHaveLength(1 + 60);
  });

  it('still reads small rows 2,000 per fetch once past the first fetches', async () => {
    const fetches = spyFetches();
    const batches = await readAll(session, 'narrow');
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(10_000);
    expect(fetches.map((f) => f.asked)).toEqual([1, 4, 16, 64, 256, 1_024, 2_000, 2_000, 2_000, 2_000, 2_000]);
  });

  it('fails a row larger than what the result may still hold from its message header, before pg buffers it', async () => {
    const own = await connector.open(resolvedDatasource(db), { connectTimeoutMs: 5_000 });
    try {
      const socket = (own as unknown as { client: pg.Client }).client.connection.stream as Socket;
      // pg-cursor's handler for each parsed DataRow (not in its type declarations).
      const parsedRows = vi.spyOn(Cursor.prototype as unknown as { handleDataRow(message: unknown): void }, 'handleDataRow');
      const before = socket.bytesRead;
      const error = await readAll(own, 'huge', budget(4 * MIB, MIB)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValueTooLargeError);
      expect(error).toMatchObject({ code: FetCode.ResultTooLarge });
      expect((error as Error).message).toContain(`table 'huge'`);
      expect((error as Error).message).toContain(`(${MIB} bytes)`);
      // pg parsed the small row before it, never the 64 MiB one: the socket was cut after a few
      // chunks of it, not after the whole message had arrived.
      expect(parsedRows).toHaveBeenCalledTimes(1);
      expect(socket.bytesRead - before).toBeLessThan(4 * MIB);
      // The connection was cut: the session is lost, and says why.
      await expect(readAll(own, 'narrow')).rejects.toThrow(/Connection lost: a value of \d+ bytes/);
    } finally {
      await own.close();
    }
    // Other sessions are untouched, and the same row reads when the result has room for it.
    const batches = await readAll(session, 'huge', budget(4 * MIB, 2 * HUGE_BYTES));
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(3);
  });
});

describe('PostgresConnector read budget (COPY path)', () => {
  const connector = new PostgresConnector('copy');
  let db: TempDatabase;
  let session: ConnectorSession;
  let readAll: Awaited<ReturnType<typeof budgetFixture>>['readAll'];

  beforeAll(async () => {
    ({ db, session, readAll } = await budgetFixture('pg_copy_budget', 40, connector));
  });

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  it('delivers 2 MB rows whole, one batch holding no more than one of them', async () => {
    const batches = await readAll(session, 'wide', budget(4 * MIB));
    const rows = batches.flatMap((b) => JSON.parse(`[${b.json.toString('utf8')}]`) as { id: number; v: string }[]);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const row of rows) expect(row.v === md5(String(row.id)).repeat(WIDE_REPEAT)).toBe(true);
    for (const batch of batches) expect(batch.rowCount).toBe(1);
  });

  it('caps the rows of a batch at batchRows', async () => {
    const batches = await readAll(session, 'narrow', {
      batchBytes: 4 * MIB,
      batchRows: 300,
      remainingBytes: () => Number.MAX_SAFE_INTEGER,
    });
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(10_000);
    for (const batch of batches) expect(batch.rowCount).toBeLessThanOrEqual(300);
  });

  it('fails a row larger than what the result may still hold once that much of it has arrived, cutting the connection', async () => {
    const own = await connector.open(resolvedDatasource(db), { connectTimeoutMs: 5_000 });
    try {
      const socket = (own as unknown as { client: pg.Client }).client.connection.stream as Socket;
      const before = socket.bytesRead;
      const error = await readAll(own, 'huge', budget(4 * MIB, MIB)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValueTooLargeError);
      expect(error).toMatchObject({ code: FetCode.ResultTooLarge });
      expect((error as Error).message).toContain(`table 'huge'`);
      // The unfinished row was refused as it passed 1 MiB, not after all 64 MiB had been read.
      expect(socket.bytesRead - before).toBeLessThan(4 * MIB);
      await expect(readAll(own, 'narrow')).rejects.toThrow(/Connection lost: a value of \d+ bytes/);
    } finally {
      await own.close();
    }
    const batches = await readAll(session, 'huge', budget(4 * MIB, 2 * HUGE_BYTES));
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(3);
  });
});
