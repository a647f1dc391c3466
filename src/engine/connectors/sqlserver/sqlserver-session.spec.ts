import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RowBatch, RowFrame, TableInfo } from '../shared/engine-connector.js';
import { allBatches, expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import {
  closeMidRead,
  collectBatches as collect,
  countTableRows,
  expectAbortReasonBetweenBatches,
  expectKeyOrderedBatches,
  expectPromptAbort,
  expectStopAfterTwoBatches,
  waitUntil,
  expectClosedForGood,
} from '../testing/batch-reading.js';
import { describeError, type SqlServerSession } from './sqlserver-session.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { column, fakeDatasource, tableOf } from './testing/fake-datasource.js';
import { catalogAnswer, startFakeTdsServer, type FakeAnswer, type FakeTdsServer, type FakeValue } from './testing/fake-tds-server.js';

/**
 * The session against a fake TDS server, through the real mssql/tedious client: streaming,
 * backpressure, early stop, abort and cancel on the server, failures. The same paths run against
 * a real server in test/integration/sqlserver-connector.spec.ts when TEST_MSSQL_URL is set.
 */
const ROWS = 120_000;

function* bigRows(): Generator<FakeValue[]> {
  for (let id = 1; id <= ROWS; id++) yield [id, `label ${id} ${'x'.repeat(60)}`];
}

const BIG = tableOf('dbo', 'big', [column('id', 'int'), column('label', 'nvarchar(200)')], ['id']);
const SMALL = tableOf('dbo', 'small', [column('id', 'int')], ['id']);
/** Rows so small that a batch renders into a single chunk. */
const IDS = tableOf('dbo', 'ids', [column('id', 'int')], ['id']);
const SLOW = tableOf('dbo', 'slow', [column('n', 'int')]);
const BROKEN = tableOf('dbo', 'broken', [column('n', 'int')]);
const TYPED = tableOf('dbo', 'typed', [
  column('flag', 'bit'),
  column('ratio', 'float'),
  column('amount', 'decimal(12,2)'),
  column('at', 'datetime2(3)'),
  column('blob', 'varbinary(16)'),
  column('note', 'nvarchar(max)'),
]);

function answer(sql: string): FakeAnswer {
  if (sql.includes('@@SPID')) return { columns: [{ name: '', type: 'int' }], rows: [[57]] };
  if (sql.includes('FROM [dbo].[big]'))
    return {
      columns: [
        { name: 'id', type: 'int' },
        { name: 'label', type: 'nvarchar' },
      ],
      rows: bigRows(),
    };
  if (sql.includes('FROM [dbo].[small]')) return { columns: [{ name: 'id', type: 'int' }], rows: [[1], [2]] };
  if (sql.includes('FROM [dbo].[ids]'))
    return {
      columns: [{ name: 'id', type: 'int' }],
      rows: (function* () {
        for (let id = 1; id <= ROWS; id++) yield [id];
      })(),
    };
  if (sql.includes('FROM [dbo].[slow]')) return { hang: true };
  if (sql.includes('FROM [dbo].[broken]')) return { error: { number: 208, message: "Invalid object name 'dbo.broken'." } };
  if (sql.includes('FROM [dbo].[typed]')) {
    return {
      columns: [
        { name: 'flag', type: 'bit' },
        { name: 'ratio', type: 'float' },
        { name: 'amount', type: 'nvarchar' },
        { name: 'at', type: 'nvarchar' },
        { name: 'blob', type: 'varbinary' },
        { name: 'note', type: 'nvarchar' },
      ],
      rows: [
        [true, 0.1, '1234567890.12', '2026-03-01 12:00:00.250', Buffer.from([0, 255, 16]), 'say "hi" \\ ção 😀\n'],
        [false, -2.5e-7, '-7.25', '2026-05-31 00:00:00.000', null, null],
      ],
    };
  }
  if (sql.includes('sys.objects')) {
    return catalogAnswer([
      ['Sales', 'Order Lines', 'line', 1, 'int', 'int', false, 4, 10, 0, 2],
      ['Sales', 'Order Lines', 'Order', 2, 'Phone', 'varchar', false, 20, 0, 0, 1],
      ['Sales', 'Order Lines', 'where', 3, 'geography', 'geography', true, -1, 0, 0, null],
      ['dbo', 'db_users', 'id', 1, 'uniqueidentifier', 'uniqueidentifier', false, 16, 0, 0, 1],
    ]);
  }
  return { columns: [{ name: 'n', type: 'int' }], rows: [] };
}

describe('SqlServerSession through mssql/tedious (fake TDS server)', () => {
  const connector = new SqlServerConnector();
  let server: FakeTdsServer;
  let session: SqlServerSession;

  const open = async (): Promise<SqlServerSession> =>
    (await connector.open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
  const readSmall = () => countTableRows(session, SMALL);

  beforeAll(async () => {
    server = await startFakeTdsServer({ answer });
    session = await open();
  });

  afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  it('opens with one round trip that names the server session', () => {
    expect(session.spid).toBe(57);
    expect(server.statements[0]).toBe('SELECT @@SPID');
  });

  it('discovers with one query, schemas as typed parameters, and groups columns, types and key order', async () => {
    const snapshot = await session.discover(['Sales', 'dbo', 'Sales'], new AbortController().signal);
    expect(server.statements.at(-1)).toContain('AND s.name IN (@p1, @p2)');
    expect(server.declarations.at(-1)).toBe('@p1 nvarchar(max), @p2 nvarchar(max)');
    expect([...snapshot.tables.keys()]).toEqual(['Sales.Order Lines', 'db_users']);
    const lines = snapshot.tables.get('Sales.Order Lines')!;
    expect(lines.columns.map((c) => [c.name, c.dataType])).toEqual([
      ['line', 'int'],
      ['Order', 'Phone'],
      ['where', 'geography'],
    ]);
    expect(lines.primaryKey).toEqual(['Order', 'line']);
    expect(lines.columns[2].engineType).toMatchObject({ kind: 'clr', typeName: 'geography' });
  });

  it('renders what tedious hands over with full fidelity', async () => {
    const { json } = await collect(session.readRows({ table: TYPED, columns: TYPED.columns }, new AbortController().signal));
    expect(json).toBe(
      '{"flag":true,"ratio":0.1,"amount":"1234567890.12","at":"2026-03-01T12:00:00.250","blob":"AP8Q","note":"say \\"hi\\" \\\\ ção 😀\\n"},' +
        '{"flag":false,"ratio":-2.5e-7,"amount":"-7.25","at":"2026-05-31T00:00:00.000","blob":null,"note":null}',
    );
    expect(server.statements.at(-1)).toContain('CONVERT(varchar(41), [amount]) AS [amount]');
  });

  it("frames the rows as the request asks: NDJSON lines holding the JSON frame's rows, across batches", async () => {
    const read = (table: TableInfo, rowFrame?: RowFrame) =>
      allBatches(session.readRows({ table, columns: table.columns, rowFrame }, new AbortController().signal));
    for (const table of [TYPED, BIG]) {
      expectNdjsonLike(await read(table, ndjsonFrame('mssql', table.key)), await read(table), 'mssql', table.key);
    }
  });

  it('sends filter values as typed parameters, dates cast on the server', async () => {
    await collect(
      session.readRows(
        { table: TYPED, columns: TYPED.columns.slice(0, 1), filters: { at: { gte: ['2026-01-01'] }, flag: { eq: [true] } } },
        new AbortController().signal,
      ),
    );
    expect(server.statements.at(-1)).toContain('WHERE [at] >= CAST(@p1 AS datetime2(7)) AND [flag] = @p2');
    expect(server.declarations.at(-1)).toBe('@p1 nvarchar(max), @p2 bit');
  });

  it('streams a large table in many bounded batches, in key order', async () => {
    await expectKeyOrderedBatches(session, BIG, { rows: ROWS, minBatches: 60, maxBatchRows: 5_000 });
    expect(server.running).toBe(0);
  });

  it('reads the next batch only when asked (backpressure)', async () => {
    const sentBefore = server.rowsSent;
    const iterator = session.readRows({ table: BIG, columns: BIG.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    try {
      expect((await iterator.next()).done).toBe(false);
      await new Promise((r) => setTimeout(r, 300));
      // The server is blocked on a full socket: far from the whole table was produced.
      const produced = server.rowsSent - sentBefore;
      expect(produced).toBeLessThan(ROWS / 2);
      expect(server.running).toBe(1);
      await new Promise((r) => setTimeout(r, 200));
      expect(server.rowsSent - sentBefore).toBe(produced);
      expect((await iterator.next()).done).toBe(false);
    } finally {
      await iterator.return?.();
    }
    expect(server.running).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('lets the consumer stop early: the statement is cancelled on the server and the session stays usable', async () => {
    const attentions = server.attentions;
    await expectStopAfterTwoBatches(session, BIG);
    expect(server.attentions).toBe(attentions + 1);
    expect(server.running).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('aborts a running statement promptly and leaves nothing running on the server', async () => {
    await expectPromptAbort(session, SLOW, { started: () => waitUntil(() => server.running === 1, 2_000, 10), withinMs: 2_000 });
    expect(server.running).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('throws the abort reason when aborted between batches', async () => {
    await expectAbortReasonBetweenBatches(session, BIG);
    expect(server.running).toBe(0);
    expect(await readSmall()).toBe(2);
  });

  it('refuses to start with an already aborted signal, sending nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const sent = server.statements.length;
    const iterator = session.readRows({ table: BIG, columns: BIG.columns }, controller.signal)[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.statements.length).toBe(sent);
  });

  it('reports a failing statement as DatasourceQueryError naming the table and the server error, and stays usable', async () => {
    await expect(collect(session.readRows({ table: BROKEN, columns: BROKEN.columns }, new AbortController().signal))).rejects.toMatchObject(
      {
        name: 'DatasourceQueryError',
        configName: 'mssql_fake',
        table: 'broken',
        message: `Reading table "broken" failed: Invalid object name 'dbo.broken'. (error 208)`,
      },
    );
    expect(await readSmall()).toBe(2);
  });

  it('closes promptly a session whose stream was left unfinished, cancelling the statement', async () => {
    const other = await open();
    const attentions = server.attentions;
    const iterator = await closeMidRead(other, BIG, 1_000);
    expect(server.attentions).toBe(attentions + 1);
    await expect(iterator.next()).rejects.toMatchObject({ name: 'DatasourceQueryError' });
    await expectClosedForGood(other);
  });

  it('never ends a stream early as if the table were exhausted when the session closes between batches', async () => {
    const other = await open();
    const iterator = other.readRows({ table: IDS, columns: IDS.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect((first.value as RowBatch).rowCount).toBe(2_000);
    await other.close();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'DatasourceQueryError', message: 'Session is closed' });
  });

  it('fails cleanly, without hanging, when the server drops the connection', async () => {
    const own = await startFakeTdsServer({ answer });
    const doomed = (await connector.open(fakeDatasource(own.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
    const iterator = doomed.readRows({ table: BIG, columns: BIG.columns }, new AbortController().signal)[Symbol.asyncIterator]();
    await iterator.next();
    own.killConnections();
    await expect(
      (async () => {
        for (;;) if ((await iterator.next()).done) return;
      })(),
    ).rejects.toMatchObject({ name: 'DatasourceQueryError', table: 'big' });
    await expect(doomed.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringMatching(/^Connection lost/),
    });
    await expect(doomed.close()).resolves.toBeUndefined();
    await own.close();
  });
});

describe('SQL Server query error messages', () => {
  it('keeps the server message and its number, never the statement', () => {
    const error = Object.assign(new Error("Invalid object name 'sales.orders'."), { code: 'EREQUEST', number: 208 });
    expect(describeError(error)).toBe("Invalid object name 'sales.orders'. (error 208)");
  });

  it('does not name the login', () => {
    const denied = Object.assign(
      new Error('The server principal "svc_fetch" is not able to access the database "ledger" under the current security context.'),
      { number: 916 },
    );
    expect(describeError(denied)).toBe(
      'The server principal <login> is not able to access the database "ledger" under the current security context. (error 916)',
    );
    expect(describeError(new Error("Login failed for user 'svc_fetch'."))).toBe('Login failed for user <login>.');
  });

  it('copes with anything thrown', () => {
    expect(describeError('boom')).toBe('unknown error');
    expect(describeError(Object.assign(new Error('x'.repeat(1000)), { code: 'not a code' }))).toHaveLength(300);
    expect(describeError(Object.assign(new Error('Connection lost - read ECONNRESET'), { code: 'ESOCKET' }))).toBe(
      'Connection lost - read ECONNRESET (ESOCKET)',
    );
  });
});
