import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FetCode } from '../../src/engine/errors/fet-code.js';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlRowStream } from '../../src/engine/connectors/mysql/mysql-row-stream.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { type ReadBudget, ValueTooLargeError } from '../../src/engine/connectors/shared/read-budget.js';
import { resolvedMySqlDatasource, useTempMariaDatabase } from '../helpers/mariadb-database.js';

const MIB = 1024 * 1024;
/** 32 hex characters repeated: 2,000,000 characters per value. */
const WIDE_REPEAT = 62_500;
const WIDE_BYTES = 32 * WIDE_REPEAT;
/** Below the server's 16 MiB max_allowed_packet (a global setting this shared server keeps). */
const HUGE_BYTES = 8 * MIB;

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
const budget = (batchBytes: number, remainingBytes = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows: 2_000,
  remainingBytes: () => remainingBytes,
});

describe('MySqlConnector read budget', () => {
  const connector = new MySqlConnector();
  const db = useTempMariaDatabase('my_read_budget');
  let session: ConnectorSession;
  let tables: ReadonlyMap<string, TableInfo>;

  beforeAll(async () => {
    await db().query(`
      CREATE TABLE wide (id INT PRIMARY KEY, v LONGTEXT);
      INSERT INTO wide SELECT seq, REPEAT(MD5(seq), ${WIDE_REPEAT}) FROM seq_1_to_120;
      CREATE TABLE narrow (id INT PRIMARY KEY, label VARCHAR(40));
      INSERT INTO narrow SELECT seq, MD5(seq) FROM seq_1_to_10000;
      CREATE TABLE huge (id INT PRIMARY KEY, v LONGTEXT);
      INSERT INTO huge VALUES (1, 'small'), (2, REPEAT('x', ${HUGE_BYTES})), (3, 'after');
    `);
    session = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    tables = (await session.discover(null, new AbortController().signal)).tables;
  }, 120_000);

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await session?.close();
  });

  /** Rows of every batch the row stream hands on (the final empty one included). */
  const spyBatches = (): number[] => {
    const sizes: number[] = [];
    const next = MySqlRowStream.prototype.next;
    vi.spyOn(MySqlRowStream.prototype, 'next').mockImplementation(async function (this: MySqlRowStream) {
      const rows = await next.call(this);
      sizes.push(rows.length);
      return rows;
    });
    return sizes;
  };

  const readAll = async (s: ConnectorSession, key: string, b?: ReadBudget): Promise<RowBatch[]> => {
    const table = tables.get(key)!;
    const batches: RowBatch[] = [];
    for await (const batch of s.readRows({ table, columns: table.columns, ...(b ? { budget: b } : {}) }, new AbortController().signal))
      batches.push(batch);
    return batches;
  };

  it('hands 2 MB rows on once a batch holds the byte budget, and delivers every value whole', async () => {
    const sizes = spyBatches();
    const batches = await readAll(session, 'wide', budget(4 * MIB));
    const rows = batches.flatMap((b) => JSON.parse(`[${b.json.toString('utf8')}]`) as { id: number; v: string }[]);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    for (const row of rows) expect(row.v === md5(String(row.id)).repeat(WIDE_REPEAT)).toBe(true);

    // A batch is handed on with the row that reaches 4 MiB: at most one row over the budget.
    expect(sizes.at(-1)).toBe(0);
    for (const size of sizes.slice(0, -2)) expect(size).toBe(Math.ceil((4 * MIB) / WIDE_BYTES));
    for (const size of sizes) expect((size - 1) * WIDE_BYTES).toBeLessThan(4 * MIB);
    expect(sizes.reduce((n, s) => n + s, 0)).toBe(120);
  });

  it('still hands small rows on 2,000 at a time', async () => {
    const sizes = spyBatches();
    const batches = await readAll(session, 'narrow');
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(10_000);
    expect(sizes).toEqual([2_000, 2_000, 2_000, 2_000, 2_000, 0]);
  });

  it('fails a row larger than what the result may still hold from its packet header, before mysql2 buffers it', async () => {
    const own = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    try {
      const socket = (own as unknown as { connection: { stream: Readable & { bytesRead: number } } }).connection.stream;
      const before = socket.bytesRead;
      const error = await readAll(own, 'huge', budget(4 * MIB, MIB)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValueTooLargeError);
      expect(error).toMatchObject({ code: FetCode.ResultTooLarge });
      expect((error as Error).message).toContain(`table 'huge'`);
      // The socket was cut after a few chunks of the 8 MiB packet, not once it had all arrived.
      expect(socket.bytesRead - before).toBeLessThan(2 * MIB);
      await expect(readAll(own, 'narrow')).rejects.toThrow(/Connection lost: a value of \d+ bytes/);
    } finally {
      await own.close();
    }
    const batches = await readAll(session, 'huge', budget(4 * MIB, 2 * HUGE_BYTES));
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(3);
  });
});
