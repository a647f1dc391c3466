import { afterEach, describe, expect, it } from 'vitest';
import type { CursorRange } from '../../incremental/cursor-range.js';
import { ABORT_BUDGET_MS } from '../shared/abortable-read.js';
import type { TableReadRequest } from '../shared/engine-connector.js';
import { beginTransaction, COMMIT, ROLLBACK, SNAPSHOT_STATE } from './sqlserver-range-read.js';
import type { SqlServerSession } from './sqlserver-session.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { column, fakeDatasource, tableOf } from './testing/fake-datasource.js';
import { startFakeTdsServer, type FakeAnswer, type FakeTdsServer, type FakeValue } from './testing/fake-tds-server.js';
import { countRows } from '../testing/batch-reading.js';

/**
 * Ranged reads through mssql/tedious against the fake TDS server: the transaction around the
 * bound and the rows, the bound told before any row, and the transaction ended whatever happens.
 * test/integration/sqlserver-incremental.spec.ts runs the same against a real server.
 */
const AT = column('at', 'datetime2(7)');
const EVENTS = tableOf('dbo', 'events', [column('id', 'int'), AT], ['id']);
const RANGE: CursorRange = { column: AT, kind: 'timestamp', after: '2024-01-01T00:00:00.0000000' };
const UPPER = '2024-01-15 10:20:30.1234567';

const isBound = (sql: string) => sql.includes('MAX([src].[at])');
const isRead = (sql: string) => sql.startsWith('SELECT [id], CONVERT(varchar(27), [at], 121) AS [at] FROM [dbo].[events] AS [src]');

interface Script {
  snapshotState?: number;
  bound?: FakeAnswer;
  read?: FakeAnswer;
  rollback?: FakeAnswer;
}

function* events(count: number): Generator<FakeValue[]> {
  for (let id = 1; id <= count; id++) yield [id, `2024-01-0${1 + (id % 9)} 00:00:00.0000000`];
}

const EVENT_COLUMNS = [
  { name: 'id', type: 'int' },
  { name: 'at', type: 'nvarchar' },
] as const;

let server: FakeTdsServer | undefined;
let session: SqlServerSession | undefined;
afterEach(async () => {
  await session?.close();
  await server?.close();
  session = server = undefined;
});

async function open(script: Script = {}): Promise<{ server: FakeTdsServer; session: SqlServerSession }> {
  const answer = (sql: string): FakeAnswer => {
    if (sql === SNAPSHOT_STATE.text) return { columns: [{ name: 'state', type: 'int' }], rows: [[script.snapshotState ?? 1]] };
    if (isBound(sql)) return script.bound ?? { columns: [{ name: 'at', type: 'nvarchar' }], rows: [[UPPER]] };
    if (isRead(sql)) return script.read ?? { columns: EVENT_COLUMNS, rows: events(3) };
    if (sql.includes('FROM [dbo].[small]')) return { columns: [{ name: 'id', type: 'int' }], rows: [[1], [2]] };
    return { columns: [{ name: '', type: 'int' }], rows: [[57]] };
  };
  server = await startFakeTdsServer({ answer, batchAnswer: (sql) => (sql === ROLLBACK ? script.rollback : undefined) });
  session = (await new SqlServerConnector().open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
  return { server, session };
}

/** What the connector sent after logging in: statements and batches, in order. */
const sent = (s: FakeTdsServer): string[] => s.received.filter((sql) => sql !== 'SELECT @@SPID' && !sql.startsWith('set '));

const ranged = (bounds: (string | null)[], range: CursorRange = RANGE): TableReadRequest => ({
  table: EVENTS,
  columns: EVENTS.columns,
  range,
  onRangeBound: (upper) => bounds.push(upper),
});

const SMALL = tableOf('dbo', 'small', [column('id', 'int')], ['id']);
const readSmall = (s: SqlServerSession) => countRows(s.readRows({ table: SMALL, columns: SMALL.columns }, new AbortController().signal));

describe('SQL Server ranged reads', () => {
  it('reads bound and rows in one SNAPSHOT transaction, tells the bound before the first row, then commits', async () => {
    const { server, session } = await open();
    const bounds: (string | null)[] = [];
    const iterator = session.readRows(ranged(bounds), new AbortController().signal)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(bounds).toEqual(['2024-01-15T10:20:30.1234567']);
    const [state, begin, bound, read] = sent(server);
    expect([state, begin]).toEqual([SNAPSHOT_STATE.text, beginTransaction(true)]);
    expect(begin).toBe('SET TRANSACTION ISOLATION LEVEL SNAPSHOT; BEGIN TRANSACTION');
    expect(isBound(bound)).toBe(true);
    expect(read).toBe(
      'SELECT [id], CONVERT(varchar(27), [at], 121) AS [at] FROM [dbo].[events] AS [src]' +
        ' WHERE [at] > CAST(@p1 AS datetime2(7)) AND [at] <= CAST(@p2 AS datetime2(7)) ORDER BY [src].[id]',
    );
    expect(server.declarations.at(-1)).toBe('@p1 nvarchar(max), @p2 nvarchar(max)');
    expect(sent(server)).not.toContain(COMMIT);
    expect(first.value?.rowCount).toBe(3);
    expect((await iterator.next()).done).toBe(true);
    expect(sent(server).at(-1)).toBe('COMMIT TRANSACTION; SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    expect(sent(server)).not.toContain(ROLLBACK);
  });

  it('asks whether snapshots are allowed once per session', async () => {
    const { server, session } = await open();
    await countRows(session.readRows(ranged([]), new AbortController().signal));
    await countRows(session.readRows(ranged([]), new AbortController().signal));
    expect(sent(server).filter((sql) => sql === SNAPSHOT_STATE.text)).toHaveLength(1);
    expect(sent(server).filter((sql) => sql === beginTransaction(true))).toHaveLength(2);
  });

  it('falls back to one READ COMMITTED transaction when the database does not allow snapshots', async () => {
    const { server, session } = await open({ snapshotState: 0 });
    const bounds: (string | null)[] = [];
    expect(await countRows(session.readRows(ranged(bounds), new AbortController().signal))).toBe(3);
    expect(bounds).toEqual(['2024-01-15T10:20:30.1234567']);
    expect(sent(server)[1]).toBe('SET TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN TRANSACTION');
    expect(sent(server).at(-1)).toBe(COMMIT);
  });

  it('tells a null bound and reads nothing when nothing lies above the mark', async () => {
    const { server, session } = await open({ bound: { columns: [{ name: 'at', type: 'nvarchar' }], rows: [] } });
    const bounds: (string | null)[] = [];
    expect(await countRows(session.readRows(ranged(bounds), new AbortController().signal))).toBe(0);
    expect(bounds).toEqual([null]);
    expect(sent(server).some(isRead)).toBe(false);
    expect(sent(server).at(-1)).toBe(COMMIT);
  });

  it('tells a null bound when the column holds no value at all (MAX is NULL)', async () => {
    const { server, session } = await open({ bound: { columns: [{ name: 'at', type: 'nvarchar' }], rows: [[null]] } });
    const bounds: (string | null)[] = [];
    expect(await countRows(session.readRows(ranged(bounds, { column: AT, kind: 'timestamp' }), new AbortController().signal))).toBe(0);
    expect(bounds).toEqual([null]);
    expect(sent(server).some(isRead)).toBe(false);
  });

  it('rolls back when the read fails, reports the failure, and stays usable', async () => {
    const { server, session } = await open({ read: { error: { number: 8115, message: 'Arithmetic overflow error.' } } });
    const bounds: (string | null)[] = [];
    await expect(countRows(session.readRows(ranged(bounds), new AbortController().signal))).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: 'events',
      message: 'Reading table "events" failed: Arithmetic overflow error. (error 8115)',
    });
    expect(bounds).toHaveLength(1);
    expect(sent(server).at(-1)).toBe('IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION; SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    expect(sent(server)).not.toContain(COMMIT);
    expect(await readSmall(session)).toBe(2);
  });

  it('rolls back when the bound query fails, before telling any bound', async () => {
    const { server, session } = await open({ bound: { error: { number: 3961, message: 'Snapshot isolation transaction failed.' } } });
    const bounds: (string | null)[] = [];
    await expect(countRows(session.readRows(ranged(bounds), new AbortController().signal))).rejects.toMatchObject({
      name: 'DatasourceQueryError',
    });
    expect(bounds).toEqual([]);
    expect(sent(server).at(-1)).toBe(ROLLBACK);
  });

  it('cancels the statement and rolls back when the consumer stops early', async () => {
    const { server, session } = await open({ read: { columns: EVENT_COLUMNS, rows: events(120_000) } });
    const attentions = server.attentions;
    for await (const batch of session.readRows(ranged([]), new AbortController().signal)) {
      expect(batch.rowCount).toBeGreaterThan(0);
      break;
    }
    expect(server.attentions).toBe(attentions + 1);
    expect(sent(server).at(-1)).toBe(ROLLBACK);
    expect(server.running).toBe(0);
    expect(await readSmall(session)).toBe(2);
  });

  it('rolls back on abort and rejects with the reason within the abort budget', async () => {
    const { server, session } = await open({ read: { hang: true } });
    const controller = new AbortController();
    const reason = new Error('job timed out');
    const reading = countRows(session.readRows(ranged([]), controller.signal));
    const started = Date.now();
    while (server.running === 0) {
      if (Date.now() - started > 2_000) throw new Error('the read never started');
      await new Promise((r) => setTimeout(r, 10));
    }
    const abortedAt = Date.now();
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(ABORT_BUDGET_MS);
    expect(sent(server).at(-1)).toBe(ROLLBACK);
    expect(await readSmall(session)).toBe(2);
  });

  it('cuts the connection when the rollback is never answered, rather than leave the transaction open', async () => {
    const { server, session } = await open({ read: { error: { number: 50000, message: 'boom' } }, rollback: { hang: true, deaf: true } });
    const started = Date.now();
    await expect(countRows(session.readRows(ranged([]), new AbortController().signal))).rejects.toMatchObject({
      name: 'DatasourceQueryError',
    });
    expect(Date.now() - started).toBeLessThan(ABORT_BUDGET_MS + 1_000);
    expect(sent(server).at(-1)).toBe(ROLLBACK);
    await expect(readSmall(session)).rejects.toMatchObject({ message: expect.stringMatching(/^Connection lost/) });
  });
});
