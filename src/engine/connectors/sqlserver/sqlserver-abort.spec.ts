import { afterEach, describe, expect, it } from 'vitest';
import { ABORT_BUDGET_MS } from '../shared/abortable-read.js';
import type { SqlServerSession } from './sqlserver-session.js';
import { countRows as collect, rejection, timed } from '../testing/timing.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { column, fakeDatasource, tableOf } from './testing/fake-datasource.js';
import { catalogAnswer, startFakeTdsServer, type FakeAnswer, type FakeTdsServer, type FakeValue } from './testing/fake-tds-server.js';

/**
 * Deadlines through the real mssql/tedious client against a fake TDS server that logs the client
 * in and then stops answering: a catalog query or a read that never returns, with a cancel the
 * server ignores (the connection must be cut) or acknowledges (the session must stay usable).
 */
const SLACK_MS = 700;
const IDS = tableOf('dbo', 'ids', [column('id', 'int')], ['id']);
const SMALL = tableOf('dbo', 'small', [column('id', 'int')], ['id']);

function* ids(): Generator<FakeValue[]> {
  for (let id = 1; ; id++) yield [id];
}

const catalog = catalogAnswer([['dbo', 'small', 'id', 1, 'int', 'int', false, 4, 10, 0, 1]]);

/** Answers the login's check and `small`; everything else as `rest` decides. */
const answering =
  (rest: (sql: string) => FakeAnswer | undefined) =>
  (sql: string): FakeAnswer => {
    if (sql.includes('@@SPID')) return { columns: [{ name: '', type: 'int' }], rows: [[57]] };
    if (sql.includes('FROM [dbo].[small]')) return { columns: [{ name: 'id', type: 'int' }], rows: [[1], [2]] };
    return rest(sql) ?? catalog;
  };

describe('SqlServerSession deadlines (fake TDS server that stops answering)', () => {
  const connector = new SqlServerConnector();
  let server: FakeTdsServer | undefined;
  let session: SqlServerSession | undefined;

  const start = async (answer: (sql: string) => FakeAnswer): Promise<SqlServerSession> => {
    server = await startFakeTdsServer({ answer });
    session = (await connector.open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
    return session;
  };
  const readSmall = (s: SqlServerSession) => collect(s.readRows({ table: SMALL, columns: SMALL.columns }, new AbortController().signal));

  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = undefined;
    server = undefined;
  });

  it('rejects a catalog query the server never answers (nor its cancel) with the signal reason, cuts the connection, and closes promptly', async () => {
    const s = await start(answering((sql) => (sql.includes('sys.objects') ? { hang: true, deaf: true } : undefined)));
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(s.discover(null, signal));
    expect(error).toBe(signal.reason);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(ms).toBeLessThan(300 + ABORT_BUDGET_MS + SLACK_MS);
    // The cancel was sent; the server ignored it, so the connection was cut.
    expect(server!.attentions).toBe(1);
    await expect(s.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: 'Connection lost: catalog query could not be cancelled; connection closed',
    });
    expect(await timed(s.close())).toBeLessThan(500);
  });

  it('cancels a catalog query on the server when it answers the cancel, and stays usable', async () => {
    let calls = 0;
    const s = await start(answering((sql) => (sql.includes('sys.objects') && ++calls === 1 ? { hang: true } : undefined)));
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(s.discover(null, signal));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + SLACK_MS);
    expect(server!.running).toBe(0);
    expect([...(await s.discover(null, new AbortController().signal)).tables.keys()]).toEqual(['small']);
    expect(await readSmall(s)).toBe(2);
  });

  it('closes within the abort budget a session whose catalog query hangs, failing the query', async () => {
    const s = await start(answering((sql) => (sql.includes('sys.objects') ? { hang: true, deaf: true } : undefined)));
    const discovering = s.discover(null, new AbortController().signal);
    discovering.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(await timed(s.close())).toBeLessThan(ABORT_BUDGET_MS + SLACK_MS);
    await expect(discovering).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringMatching(/^Schema discovery failed/),
    });
  });

  it('rejects a read that stalls mid-stream and ignores its cancel with the signal reason, and closes promptly', async () => {
    const s = await start(
      answering((sql) =>
        sql.includes('FROM [dbo].[ids]')
          ? { columns: [{ name: 'id', type: 'int' }], rows: ids(), stallAfter: 2_500, deaf: true }
          : undefined,
      ),
    );
    const signal = AbortSignal.timeout(300);
    let rows = 0;
    const reading = (async () => {
      for await (const batch of s.readRows({ table: IDS, columns: IDS.columns }, signal)) rows += batch.rowCount;
    })();
    const { error, ms } = await rejection(reading);
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + ABORT_BUDGET_MS + SLACK_MS);
    // The first batch came through before the server went quiet.
    expect(rows).toBe(2_000);
    expect(server!.attentions).toBe(1);
    await expect(readSmall(s)).rejects.toMatchObject({ message: 'Connection lost: statement could not be cancelled; connection closed' });
    expect(await timed(s.close())).toBeLessThan(500);
  });

  it('cancels a read stalled mid-stream when the server answers the cancel, and stays usable', async () => {
    const s = await start(
      answering((sql) =>
        sql.includes('FROM [dbo].[ids]') ? { columns: [{ name: 'id', type: 'int' }], rows: ids(), stallAfter: 2_500 } : undefined,
      ),
    );
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(collect(s.readRows({ table: IDS, columns: IDS.columns }, signal)));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + SLACK_MS);
    expect(server!.running).toBe(0);
    expect(await readSmall(s)).toBe(2);
  });

  it('closes within the abort budget a session whose stream stalled and ignores the cancel', async () => {
    const s = await start(
      answering((sql) =>
        sql.includes('FROM [dbo].[ids]') ? { columns: [{ name: 'id', type: 'int' }], rows: ids(), stallAfter: 10, deaf: true } : undefined,
      ),
    );
    const reading = collect(s.readRows({ table: IDS, columns: IDS.columns }, new AbortController().signal));
    reading.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(await timed(s.close())).toBeLessThan(ABORT_BUDGET_MS + SLACK_MS);
    await expect(reading).rejects.toMatchObject({ name: 'DatasourceQueryError' });
  });
});

describe('SqlServerConnector.open against a server that logs in and then stops answering', () => {
  const connector = new SqlServerConnector();
  let server: FakeTdsServer;

  afterEach(async () => {
    await server?.close();
  });

  const silentCheck = (): Promise<FakeTdsServer> =>
    startFakeTdsServer({
      answer: (sql) => (sql.includes('@@SPID') ? { hang: true, deaf: true } : { columns: [{ name: '', type: 'int' }], rows: [[1]] }),
    });

  it('fails the check query with a timeout within the connect deadline', async () => {
    server = await silentCheck();
    const { error, ms } = await rejection(connector.open(fakeDatasource(server.port), { connectTimeoutMs: 600 }));
    expect(error).toMatchObject({ name: 'DatasourceConnectError', reason: 'timeout' });
    expect(ms).toBeLessThan(600 + SLACK_MS);
    expect(server.logins).toBeGreaterThanOrEqual(1);
  });

  it('stops at once with the abort reason when aborted during the check query', async () => {
    server = await silentCheck();
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(connector.open(fakeDatasource(server.port), { connectTimeoutMs: 10_000, signal }));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + SLACK_MS);
  });
});
