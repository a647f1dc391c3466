import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import type { Socket } from 'node:net';
import type pg from 'pg';
import { PG_READ_PATHS, resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';
import {
  countTableRows,
  expectAbortReasonBetweenBatches,
  expectKeyOrderedBatches,
  expectPromptAbort,
  expectRefusedWhenAborted,
  expectStopAfterTwoBatches,
  waitUntil,
} from '../../src/engine/connectors/testing/batch-reading.js';

const ROWS = 200_000;

describe.each(PG_READ_PATHS)('PostgresConnector streaming and abort (%s path)', (readPath) => {
  const connector = new PostgresConnector(readPath);
  const db = useTempDatabase('pg_streaming');
  let session: ConnectorSession;
  let big: TableInfo;
  let slow: TableInfo;

  /** Statements of our connector still running on the server, apart from the observer itself. */
  const runningStatements = async (pattern: string): Promise<number> => {
    const { rows } = await db().query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE $1`,
      [`%${pattern}%`],
    );
    return Number(rows[0].n);
  };

  beforeAll(async () => {
    await db().query(`
      CREATE TABLE big (id int PRIMARY KEY, label text);
      INSERT INTO big SELECT g, md5(g::text) FROM generate_series(${ROWS}, 1, -1) g;
      CREATE VIEW slow AS SELECT 1 AS n, pg_sleep(30)::text AS z;
      CREATE TABLE small (id int PRIMARY KEY);
      INSERT INTO small VALUES (1), (2);
    `);
    session = await connector.open(resolvedDatasource(db()), { connectTimeoutMs: 5_000 });
    const tables = (await session.discover(['public'], new AbortController().signal)).tables;
    big = tables.get('big')!;
    slow = tables.get('slow')!;
  });

  afterAll(async () => {
    await session?.close();
  });

  const readSmall = async (): Promise<number> =>
    countTableRows(session, (await session.discover(['public'], new AbortController().signal)).tables.get('small')!);

  it('streams a large table in many bounded batches, in key order', async () => {
    await expectKeyOrderedBatches(session, big, { rows: ROWS, minBatches: 50, maxBatchRows: 5_000 });
  });

  it('lets the consumer stop early; the statement ends and the session stays usable', async () => {
    await expectStopAfterTwoBatches(session, big);
    expect(await runningStatements('FROM "public"."big"')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('reads the next batch only when asked (backpressure)', async () => {
    const socket = (session as unknown as { client: pg.Client }).client.connection.stream as Socket;
    const before = socket.bytesRead;
    const iterator = session.readRows({ table: big, columns: big.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      expect(first.done).toBe(false);
      // The backend reaches its wait once it has sent what the socket takes; on a loaded machine
      // that can take longer than a fixed pause, so the state is polled (up to 5 s), not sampled once.
      const settledWait = readPath === 'cursor' ? 'ClientRead' : 'ClientWrite';
      let rows: { wait_event: string | null }[] = [];
      for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        ({ rows } = await db().query<{ wait_event: string | null }>(
          `SELECT wait_event FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%FROM "public"."big"%' AND pid <> pg_backend_pid()`,
        ));
        if (rows.length === 1 && rows[0].wait_event === settledWait) break;
      }
      if (readPath === 'cursor') {
        // While the consumer holds a batch the portal is suspended: the backend waits for our next
        // request (ClientRead) instead of pushing the rest of the table at us (ClientWrite).
        expect(rows).toEqual([{ wait_event: 'ClientRead' }]);
      } else {
        // A COPY cannot be suspended: the backend is blocked on a full socket (ClientWrite), and
        // what reached us is a small part of the table, however long the consumer waits.
        expect(rows).toEqual([{ wait_event: 'ClientWrite' }]);
        const received = socket.bytesRead;
        await new Promise((r) => setTimeout(r, 200));
        expect(socket.bytesRead - received).toBe(0);
        // The table is about 9 MB of COPY text.
        expect(received - before).toBeLessThan(1024 * 1024);
      }
      const second = await iterator.next();
      expect(second.done).toBe(false);
    } finally {
      await iterator.return?.();
    }
    expect(await readSmall()).toBe(2);
  });

  it('aborts a running statement promptly and leaves nothing running on the server', async () => {
    // The view sleeps 30 s: only the abort ends the read.
    const started = async () => {
      await waitUntil(async () => (await runningStatements('FROM "public"."slow"')) === 1, 5_000);
      await new Promise((r) => setTimeout(r, 300));
    };
    await expectPromptAbort(session, slow, { started, withinMs: 2_000 });
    const gone = await waitUntil(
      async () => (await runningStatements('pg_sleep')) === 0 && (await runningStatements('"slow"')) === 0,
      1_000,
    );
    expect(gone).toBeLessThan(1_000);
    // The cancel hit only that statement: the session goes on.
    expect(await readSmall()).toBe(2);
  });

  it('throws the abort reason when aborted between batches', async () => {
    await expectAbortReasonBetweenBatches(session, big);
    expect(await runningStatements('FROM "public"."big"')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('refuses to start with an already aborted signal', async () => {
    await expectRefusedWhenAborted(session, big, (signal) => connector.open(resolvedDatasource(db()), { connectTimeoutMs: 5_000, signal }));
  });
});
