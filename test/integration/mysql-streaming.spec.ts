import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { resolvedMySqlDatasource, useTempMariaDatabase } from '../helpers/mariadb-database.js';
import {
  closeMidRead,
  countTableRows,
  expectAbortReasonBetweenBatches,
  expectKeyOrderedBatches,
  expectPromptAbort,
  expectRefusedWhenAborted,
  expectStopAfterTwoBatches,
  waitUntil,
} from '../../src/engine/connectors/testing/batch-reading.js';

const ROWS = 200_000;

describe('MySqlConnector streaming and abort', () => {
  const connector = new MySqlConnector();
  const db = useTempMariaDatabase('my_streaming');
  let session: ConnectorSession;
  let big: TableInfo;
  let slow: TableInfo;

  /** Statements of our connector still running on the server, apart from the observer itself. */
  const runningStatements = async (pattern: string): Promise<number> => {
    const rows = await db().query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
       WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND COMMAND = 'Query' AND INFO LIKE ?`,
      [`%${pattern}%`],
    );
    return Number(rows[0].n);
  };

  beforeAll(async () => {
    // ~30 MB of rows, far more than socket buffers hold; inserted in reverse key order.
    await db().query(`
      CREATE TABLE big (id INT PRIMARY KEY, label VARCHAR(200));
      INSERT INTO big SELECT ${ROWS + 1} - seq, REPEAT(MD5(seq), 4) FROM seq_1_to_${ROWS};
      CREATE VIEW slow AS SELECT 1 AS n, SLEEP(30) AS z;
      CREATE TABLE small (id INT PRIMARY KEY);
      INSERT INTO small VALUES (1), (2);
    `);
    session = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    const tables = (await session.discover(null, new AbortController().signal)).tables;
    big = tables.get('big')!;
    slow = tables.get('slow')!;
  });

  afterAll(async () => {
    await session?.close();
  });

  const readSmall = async (): Promise<number> =>
    countTableRows(session, (await session.discover(null, new AbortController().signal)).tables.get('small')!);

  it('streams a large table in many bounded batches, in key order', async () => {
    await expectKeyOrderedBatches(session, big, { rows: ROWS, minBatches: 50, maxBatchRows: 5_000 });
  });

  it('lets the consumer stop early; the statement ends and the session stays usable', async () => {
    await expectStopAfterTwoBatches(session, big);
    expect(await runningStatements('FROM `' + db().name + '`.`big`')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('reads the next batch only when asked (backpressure)', async () => {
    const iterator = session.readRows({ table: big, columns: big.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      expect(first.done).toBe(false);
      // While the consumer holds a batch the connection is paused: the server cannot finish
      // sending the table and the statement is still running a while later.
      await new Promise((r) => setTimeout(r, 500));
      expect(await runningStatements('FROM `' + db().name + '`.`big`')).toBe(1);
      const second = await iterator.next();
      expect(second.done).toBe(false);
    } finally {
      await iterator.return?.();
    }
    expect(await runningStatements('FROM `' + db().name + '`.`big`')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('aborts a running statement promptly and leaves nothing running on the server', async () => {
    // The view sleeps 30 s: only the abort ends the read.
    const started = async () => {
      await waitUntil(async () => (await runningStatements('`slow`')) === 1, 5_000);
      await new Promise((r) => setTimeout(r, 300));
    };
    await expectPromptAbort(session, slow, { started, withinMs: 2_000 });
    const gone = await waitUntil(async () => (await runningStatements('`slow`')) === 0, 1_000);
    expect(gone).toBeLessThan(1_000);
    // KILL QUERY hit only that statement: the session goes on.
    expect(await readSmall()).toBe(2);
  });

  it('throws the abort reason when aborted between batches', async () => {
    await expectAbortReasonBetweenBatches(session, big);
    expect(await runningStatements('FROM `' + db().name + '`.`big`')).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('refuses to start with an already aborted signal', async () => {
    await expectRefusedWhenAborted(session, big, (signal) =>
      connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000, signal }),
    );
  });

  it('closes promptly a session whose stream was left unfinished, stopping the statement', async () => {
    const other = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    const iterator = await closeMidRead(other, big, 1_000);
    expect(await runningStatements('FROM `' + db().name + '`.`big`')).toBe(0);
    await expect(iterator.next()).rejects.toMatchObject({ name: 'DatasourceQueryError' });
  });
});
