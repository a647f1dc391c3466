import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import type { SqlServerSession } from '../../src/engine/connectors/sqlserver/sqlserver-session.js';
import { SqlServerConnector } from '../../src/engine/connectors/sqlserver/sqlserver.connector.js';
import {
  describeWithSqlServer,
  resolvedSqlServerDatasource,
  withSqlServerAdmin,
  useTempSqlServerDatabase,
} from '../helpers/sqlserver-database.js';
import {
  closeMidRead,
  countTableRows,
  expectAbortReasonBetweenBatches,
  expectKeyOrderedBatches,
  expectPromptAbort,
  expectStopAfterTwoBatches,
  waitUntil,
} from '../../src/engine/connectors/testing/batch-reading.js';

const ROWS = 200_000;

describeWithSqlServer('SqlServerConnector against SQL Server: streaming, early stop and abort', (target) => {
  const connector = new SqlServerConnector();
  const db = useTempSqlServerDatabase(target, 'streaming');
  let session: SqlServerSession;
  let big: TableInfo;
  let slow: TableInfo;
  let small: TableInfo;

  /** Requests of a session (ours unless named) still running on the server. */
  const running = async (spid = session.spid): Promise<number> =>
    withSqlServerAdmin(target, async (admin) => {
      const result = await admin
        .request()
        .input('spid', spid)
        .query<{ n: number }>('SELECT COUNT(*) AS n FROM sys.dm_exec_requests WHERE session_id = @spid');
      return result.recordset[0].n;
    });

  const readSmall = (): Promise<number> => countTableRows(session, small);

  beforeAll(async () => {
    await db().run(
      'CREATE TABLE dbo.big (id int PRIMARY KEY, label nvarchar(200) NOT NULL)',
      // ~50 MB of rows, inserted in reverse key order: reads must come back ordered by id.
      `WITH n AS (SELECT TOP (${ROWS}) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS i FROM sys.all_objects a CROSS JOIN sys.all_objects b)
       INSERT INTO dbo.big (id, label) SELECT ${ROWS} + 1 - i, REPLICATE(CONVERT(nvarchar(32), HASHBYTES('MD5', CONVERT(varchar(12), i)), 2), 4) FROM n`,
      // Runs for hours: a view cannot hold WAITFOR DELAY, a 4-way cross join it can.
      `CREATE VIEW dbo.slow AS SELECT COUNT_BIG(*) AS n
         FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b CROSS JOIN sys.all_objects AS c CROSS JOIN sys.all_objects AS d`,
      'CREATE TABLE dbo.small (id int PRIMARY KEY)',
      'INSERT INTO dbo.small VALUES (1), (2)',
    );
    session = (await connector.open(resolvedSqlServerDatasource(db()), { connectTimeoutMs: 15_000 })) as SqlServerSession;
    const tables = (await session.discover(['dbo'], new AbortController().signal)).tables;
    big = tables.get('big')!;
    slow = tables.get('slow')!;
    small = tables.get('small')!;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('streams a large table in many bounded batches, in key order', async () => {
    await expectKeyOrderedBatches(session, big, { rows: ROWS, minBatches: 50, maxBatchRows: 5_000 });
  });

  it('reads the next batch only when asked: the statement waits on the paused connection', async () => {
    const iterator = session.readRows({ table: big, columns: big.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    try {
      expect((await iterator.next()).done).toBe(false);
      await new Promise((r) => setTimeout(r, 500));
      expect(await running()).toBe(1);
      expect((await iterator.next()).done).toBe(false);
    } finally {
      await iterator.return?.();
    }
    expect(await running()).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('lets the consumer stop early; the statement is cancelled and the session stays usable', async () => {
    await expectStopAfterTwoBatches(session, big);
    expect(await running()).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('aborts a long-running statement promptly: it is gone from sys.dm_exec_requests and the session goes on', async () => {
    // The view counts for hours: only the abort ends the read.
    const started = async () => {
      await waitUntil(async () => (await running()) === 1, 10_000, 50);
      await new Promise((r) => setTimeout(r, 300));
    };
    await expectPromptAbort(session, slow, { started, withinMs: 3_000 });
    expect(await waitUntil(async () => (await running()) === 0, 2_000, 50)).toBeLessThan(2_000);
    expect(await readSmall()).toBe(2);
  });

  it('throws the abort reason when aborted between batches', async () => {
    await expectAbortReasonBetweenBatches(session, big);
    expect(await running()).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('closes promptly a session whose stream was left unfinished, cancelling the statement', async () => {
    const other = (await connector.open(resolvedSqlServerDatasource(db()), { connectTimeoutMs: 15_000 })) as SqlServerSession;
    const iterator = await closeMidRead(other, big, 3_000);
    expect(await running(other.spid)).toBe(0);
    await expect(iterator.next()).rejects.toMatchObject({ name: 'DatasourceQueryError' });
  });
});
