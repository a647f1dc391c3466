import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import type { SqlServerSession } from '../../src/engine/connectors/sqlserver/sqlserver-session.js';
import { SqlServerConnector } from '../../src/engine/connectors/sqlserver/sqlserver.connector.js';
import {
  createTempSqlServerDatabase,
  describeWithSqlServer,
  resolvedSqlServerDatasource,
  type TempSqlServerDatabase,
} from '../helpers/sqlserver-database.js';
import { rangedReader } from '../../src/engine/connectors/testing/ranged-reads.js';

/**
 * Incremental reads against a real SQL Server (docs/incremental.md): the bound rendered as the
 * rows render the column, marks that compare exactly (datetime's 1/300 s ticks too), the lag in
 * the column's type, and the transaction: SNAPSHOT where the database allows it, READ COMMITTED
 * otherwise, ended after the read or when it stops.
 */
const EVENTS = `CREATE TABLE dbo.events (
  id int PRIMARY KEY,
  big bigint NULL, amount decimal(12,2) NULL, cash money NULL, d date NULL,
  at datetime2(7) NULL, legacy datetime NULL, minute smalldatetime NULL, dto datetimeoffset(3) NULL,
  f float NULL, note nvarchar(20) NULL
)`;
const ROWS = `INSERT INTO dbo.events (id, big, amount, cash, d, at, legacy, minute, dto, f, note) VALUES
  (1, 9223372036854775806, 10.50, 1.5, '2024-01-01', '2024-01-01T00:00:00.0000001', '2024-01-01T00:00:00.003',
   '2024-01-01T00:01:00', '2024-01-01T10:00:00.123+05:30', 0.5, N'a'),
  (2, 9223372036854775807, 99.99, 2.25, '2024-01-02', '2024-01-02T00:00:00.1234567', '2024-01-01T00:00:00.007',
   '2024-01-01T00:02:00', '2024-01-01T06:00:00.124+01:00', 1.5, N'b'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, N'c')`;

/**
 * One statement committed by another connection on its own thread when `cue()` is called, which
 * waits for the commit: the read calls onRangeBound synchronously between the bound and the rows,
 * where nothing awaited on this thread could run.
 */
async function commitOnCue(db: TempSqlServerDatabase, statement: string): Promise<{ cue(): void; close(): Promise<number> }> {
  const flags = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const sql = require('mssql');
     const flags = new Int32Array(workerData.flags);
     const done = (state) => { Atomics.store(flags, 2, state); Atomics.notify(flags, 2); };
     (async () => {
       const pool = new sql.ConnectionPool(workerData.config);
       pool.on('error', () => undefined);
       await pool.connect();
       Atomics.store(flags, 0, 1);
       Atomics.wait(flags, 1, 0);
       try { await pool.request().query(workerData.statement); done(1); } catch { done(2); }
       await pool.close();
     })().catch(() => done(2));`,
    {
      eval: true,
      workerData: {
        flags: flags.buffer,
        statement,
        config: {
          server: db.host,
          port: db.port,
          user: db.user,
          password: db.password,
          database: db.name,
          options: { encrypt: db.sslMode === 'strict' ? 'strict' : db.sslMode === 'true', trustServerCertificate: true },
        },
      },
    },
  );
  for (let waited = 0; Atomics.load(flags, 0) === 0; waited += 20) {
    if (Atomics.load(flags, 2) === 2 || waited > 30_000) throw new Error('the committing thread could not connect');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    cue() {
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      Atomics.wait(flags, 2, 0, 30_000);
      if (Atomics.load(flags, 2) !== 1) throw new Error('the other connection committed nothing');
    },
    close: () => worker.terminate(),
  };
}

describeWithSqlServer('SQL Server incremental reads', (target) => {
  const connector = new SqlServerConnector();
  let db: TempSqlServerDatabase;
  let noSnapshot: TempSqlServerDatabase;
  let session: SqlServerSession;
  let fallback: SqlServerSession;
  let events: TableInfo;

  beforeAll(async () => {
    db = await createTempSqlServerDatabase(target, 'incremental');
    noSnapshot = await createTempSqlServerDatabase(target, 'incremental_rc');
    await db.run(`ALTER DATABASE [${db.name}] SET ALLOW_SNAPSHOT_ISOLATION ON`, EVENTS, ROWS);
    await noSnapshot.run(`ALTER DATABASE [${noSnapshot.name}] SET ALLOW_SNAPSHOT_ISOLATION OFF`, EVENTS, ROWS);
    session = (await connector.open(resolvedSqlServerDatasource(db), { connectTimeoutMs: 15_000 })) as SqlServerSession;
    fallback = (await connector.open(resolvedSqlServerDatasource(noSnapshot), { connectTimeoutMs: 15_000 })) as SqlServerSession;
    events = (await session.discover(null, new AbortController().signal)).tables.get('events')!;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
    await fallback?.close();
    await db?.drop();
    await noSnapshot?.drop();
  });

  const { columnOf, rangeOf, ranged } = rangedReader(connector, () => ({ session, table: events }), 'id');

  it('gives each type family its kind, and refuses floats and text', () => {
    const kinds = Object.fromEntries(events.columns.map((c) => [c.name, connector.cursorKind(c)]));
    expect(kinds).toEqual({
      id: 'integer',
      big: 'integer',
      amount: 'decimal',
      cash: 'decimal',
      d: 'date',
      at: 'timestamp',
      legacy: 'timestamp',
      minute: 'timestamp',
      dto: 'timestamptz',
      f: null,
      note: null,
    });
  });

  /** Each cursor column's values in rows 1 and 2 as the result writes them. */
  const VALUES: readonly (readonly [string, string, string])[] = [
    ['big', '9223372036854775806', '9223372036854775807'],
    ['amount', '"10.50"', '"99.99"'],
    ['cash', '"1.5000"', '"2.2500"'],
    ['d', '"2024-01-01"', '"2024-01-02"'],
    ['at', '"2024-01-01T00:00:00.0000001"', '"2024-01-02T00:00:00.1234567"'],
    ['legacy', '"2024-01-01T00:00:00.003"', '"2024-01-01T00:00:00.007"'],
    ['minute', '"2024-01-01T00:01:00"', '"2024-01-01T00:02:00"'],
    ['dto', '"2024-01-01T10:00:00.123+05:30"', '"2024-01-01T06:00:00.124+01:00"'],
  ];
  const text = (json: string): string => (json.startsWith('"') ? (JSON.parse(json) as string) : json);

  it.each(VALUES)(
    'bounds a first run of %s by its maximum, written as the rows write it, and reads every row with a value',
    async (name, one, two) => {
      expect(await ranged(name)).toEqual({ bound: text(two), rows: [`{"id":1,"${name}":${one}}`, `{"id":2,"${name}":${two}}`] });
    },
  );

  it.each(VALUES)('reads nothing above its own bound on %s: the mark compares equal to its value', async (name, _one, two) => {
    expect(await ranged(name, { after: text(two) })).toEqual({ bound: null, rows: [] });
    // Inclusive from the same value: exactly the row holding it.
    expect(await ranged(name, { from: text(two) })).toEqual({ bound: text(two), rows: [`{"id":2,"${name}":${two}}`] });
  });

  it("keeps a datetime mark on a 1/300 s tick exact: the tick's row is not read again, the next one is", async () => {
    const { bound, rows } = await ranged('legacy', { after: '2024-01-01T00:00:00.003' });
    expect(bound).toBe('2024-01-01T00:00:00.007');
    expect(rows).toEqual(['{"id":2,"legacy":"2024-01-01T00:00:00.007"}']);
    expect((await ranged('legacy', { from: '2024-01-01T00:00:00.003' })).rows).toHaveLength(2);
  });

  it('takes the bound over the whole table, whatever the filters keep', async () => {
    const { bound, rows } = await ranged('at', {}, { note: { eq: ['a'] } });
    expect(bound).toBe('2024-01-02T00:00:00.1234567');
    expect(rows).toEqual(['{"id":1,"at":"2024-01-01T00:00:00.0000001"}']);
  });

  it('subtracts the lag in the column type: seconds keep datetime2(7), date gives whole days', async () => {
    expect((await ranged('at', { lagSeconds: 1 })).bound).toBe('2024-01-01T23:59:59.1234567');
    expect((await ranged('dto', { lagSeconds: 60 })).bound).toBe('2024-01-01T05:59:00.124+01:00');
    expect((await ranged('minute', { lagSeconds: 30 })).bound).toBe('2024-01-01T00:01:00');
    const days = await ranged('d', { lagSeconds: 3600 });
    expect(days).toEqual({ bound: '2024-01-01', rows: ['{"id":1,"d":"2024-01-01"}'] });
    // A lagged bound not above the mark: nothing.
    expect(await ranged('d', { lagSeconds: 3600, after: '2024-01-01' })).toEqual({ bound: null, rows: [] });
  });

  it('reads in a SNAPSHOT transaction, and leaves none open and READ COMMITTED behind', async () => {
    const state = async (spid: number, on: TempSqlServerDatabase) =>
      (
        await on.query<{ level: number; open: number; snapshot: number }>(
          `SELECT s.transaction_isolation_level AS level, s.open_transaction_count AS [open],
             (SELECT COUNT(*) FROM sys.dm_tran_active_snapshot_database_transactions t WHERE t.session_id = s.session_id) AS snapshot
           FROM sys.dm_exec_sessions s WHERE s.session_id = @spid`,
          { spid },
        )
      )[0];
    const request = { table: events, columns: [columnOf('id')], range: rangeOf('id'), onRangeBound: () => undefined };
    const iterator = session.readRows(request, new AbortController().signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    // SNAPSHOT is level 5; the transaction stays open until the read is over.
    expect(await state(session.spid, db)).toEqual({ level: 5, open: 1, snapshot: 1 });
    expect((await iterator.next()).done).toBe(true);
    expect(await state(session.spid, db)).toEqual({ level: 2, open: 0, snapshot: 0 });

    // Stopped early: rolled back.
    for await (const batch of session.readRows(request, new AbortController().signal)) {
      expect(batch.rowCount).toBeGreaterThan(0);
      break;
    }
    expect(await state(session.spid, db)).toEqual({ level: 2, open: 0, snapshot: 0 });

    // Without ALLOW_SNAPSHOT_ISOLATION: one READ COMMITTED (level 2) transaction.
    const rc = fallback.readRows(request, new AbortController().signal)[Symbol.asyncIterator]();
    expect((await rc.next()).done).toBe(false);
    expect(await state(fallback.spid, noSnapshot)).toEqual({ level: 2, open: 1, snapshot: 0 });
    await rc.return?.();
    expect(await state(fallback.spid, noSnapshot)).toEqual({ level: 2, open: 0, snapshot: 0 });
  });

  it('reads the rows from the snapshot the bound was taken in; under READ COMMITTED, as they are then', async () => {
    const read = async (on: SqlServerSession, base: TempSqlServerDatabase) => {
      const late = await commitOnCue(base, "INSERT INTO dbo.events (id, at) VALUES (10, '2024-01-01T12:00:00')");
      try {
        let bound: string | null | undefined;
        const rows: string[] = [];
        const request = {
          table: events,
          columns: [columnOf('id'), columnOf('at')],
          range: rangeOf('at', { after: '2024-01-01T00:00:00.0000001' }),
          onRangeBound: (upper: string | null) => {
            bound = upper;
            late.cue();
          },
        };
        for await (const batch of on.readRows(request, new AbortController().signal)) rows.push(batch.json.toString('utf8'));
        return { bound, rows: rows.join(',') };
      } finally {
        await late.close();
        await base.query('DELETE FROM dbo.events WHERE id = 10');
      }
    };
    const upper = '{"id":2,"at":"2024-01-02T00:00:00.1234567"}';
    // Committed after the bound, below it: not in the snapshot.
    expect(await read(session, db)).toEqual({ bound: '2024-01-02T00:00:00.1234567', rows: upper });
    // READ COMMITTED reads it now; committed a moment later, it would have been missed.
    expect(await read(fallback, noSnapshot)).toEqual({
      bound: '2024-01-02T00:00:00.1234567',
      rows: upper + ',{"id":10,"at":"2024-01-01T12:00:00.0000000"}',
    });
  });

  it('reads the rows as they were when the bound was taken, whatever is committed meanwhile', async () => {
    await db.run(
      'CREATE TABLE dbo.many (id int PRIMARY KEY, note nvarchar(20) NOT NULL)',
      `INSERT INTO dbo.many (id, note) SELECT TOP (50000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)), N'before'
         FROM sys.all_objects a CROSS JOIN sys.all_objects b`,
    );
    const many = (await session.discover(null, new AbortController().signal)).tables.get('many')!;
    const [id, note] = many.columns;
    let bound: string | null | undefined;
    const reading = session.readRows(
      { table: many, columns: [id, note], range: { column: id, kind: 'integer' }, onRangeBound: (upper) => (bound = upper) },
      new AbortController().signal,
    );
    const iterator = reading[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.json.toString('utf8').startsWith('{"id":1,"note":"before"}')).toBe(true);
    // Committed while the read is under way: neither the change nor the new row shows.
    await db.run("UPDATE dbo.many SET note = N'after' WHERE id = 50000", "INSERT INTO dbo.many (id, note) VALUES (50001, N'after')");
    let last = '';
    let rows = first.value!.rowCount;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      rows += next.value.rowCount;
      last = next.value.json.toString('utf8');
    }
    expect(bound).toBe('50000');
    expect(rows).toBe(50_000);
    expect(last.endsWith('{"id":50000,"note":"before"}')).toBe(true);
  });
});
