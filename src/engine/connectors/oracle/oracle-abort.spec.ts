import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { ABORT_BUDGET_MS } from '../shared/abortable-read.js';
import type { ConnectorSession, TableInfo } from '../shared/engine-connector.js';
import { countRows as count, rejection, timed } from '../testing/timing.js';
import { OracleConnector } from './oracle.connector.js';
import { catalogAnswer, fakeOracleDatasource, FAKE_ORACLE_PASSWORD, type FakeOracleTable } from './testing/fake-oracle-datasource.js';
import { startFakeOracleServer, type FakeOracleAnswer, type FakeOracleServer, type FakeOracleValue } from './testing/fake-oracle-server.js';

/**
 * Deadlines through the real node-oracledb thin client against a fake Oracle server that logs the
 * client in and then stops answering: a catalog query or a fetch that never returns, with a break
 * the server ignores (the socket must be cut) or answers with ORA-01013 (the session must stay
 * usable), and logins that never complete.
 */
const SLACK_MS = 700;
const TABLES: FakeOracleTable[] = [
  { name: 'SMALL', columns: [['ID', 'NUMBER']] },
  { name: 'IDS', columns: [['ID', 'NUMBER']] },
];
const catalog = catalogAnswer(TABLES);

function* ids(): Generator<FakeOracleValue[]> {
  for (let id = 1; ; id++) yield [String(id)];
}

/** The catalog, `SMALL` (two rows), and whatever `rest` says for the other statements. */
const answering =
  (rest: (sql: string) => FakeOracleAnswer | undefined) =>
  (sql: string): FakeOracleAnswer =>
    rest(sql) ?? catalog(sql) ?? (sql.includes('"SMALL"') ? { columns: ['ID'], rows: [['1'], ['2']] } : { columns: ['ID'], rows: [] });

const onCatalog = (answer: FakeOracleAnswer) => (sql: string) => (sql.includes('FROM ALL_TAB_COLUMNS') ? answer : undefined);
const onIds = (answer: FakeOracleAnswer) => (sql: string) => (sql.includes('"IDS"') ? answer : undefined);

describe('OracleSession deadlines (fake Oracle server that stops answering)', () => {
  const connector = new OracleConnector();
  let server: FakeOracleServer | undefined;
  let session: ConnectorSession | undefined;

  const start = async (answer: (sql: string) => FakeOracleAnswer): Promise<ConnectorSession> => {
    server = await startFakeOracleServer({ password: FAKE_ORACLE_PASSWORD, answer });
    session = await connector.open(fakeOracleDatasource(server.port), { connectTimeoutMs: 5_000 });
    return session;
  };
  const table = async (s: ConnectorSession, name: string): Promise<TableInfo> =>
    (await s.discover([], new AbortController().signal)).tables.get(name)!;
  const readSmall = async (s: ConnectorSession) =>
    count(s.readRows({ table: await table(s, 'SMALL'), columns: (await table(s, 'SMALL')).columns }, new AbortController().signal));

  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = undefined;
    server = undefined;
  });

  it('rejects a catalog query the server never answers (nor its break) with the signal reason, cuts the socket, and closes promptly', async () => {
    const s = await start(answering(onCatalog({ hang: true, deaf: true })));
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(s.discover(null, signal));
    expect(error).toBe(signal.reason);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(ms).toBeLessThan(300 + ABORT_BUDGET_MS + SLACK_MS);
    expect(server!.breaks).toBe(1);
    await expect(s.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: 'Connection lost: statement could not be interrupted; connection closed',
    });
    expect(await timed(s.close())).toBeLessThan(500);
    await expect.poll(() => server!.openConnections).toBe(0);
  });

  it('breaks a catalog query on the server when it answers the break, and stays usable', async () => {
    let calls = 0;
    const s = await start(answering((sql) => (sql.includes('FROM ALL_TAB_COLUMNS') && ++calls === 1 ? { hang: true } : undefined)));
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(s.discover(null, signal));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + SLACK_MS);
    expect(server!.running).toBe(0);
    expect([...(await s.discover([], new AbortController().signal)).tables.keys()].sort()).toEqual(['IDS', 'SMALL']);
    expect(await readSmall(s)).toBe(2);
  });

  it('closes within the abort budget a session whose catalog query hangs, failing the query', async () => {
    const s = await start(answering(onCatalog({ hang: true, deaf: true })));
    const discovering = s.discover(null, new AbortController().signal);
    discovering.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(await timed(s.close())).toBeLessThan(ABORT_BUDGET_MS + SLACK_MS);
    await expect(discovering).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringMatching(/^Schema discovery failed: NJS-500/),
    });
  });

  it('rejects a read that stalls mid-stream and ignores its break with the signal reason, and closes promptly', async () => {
    // The first round trips bring 1 + 4 + 16 + 64 = 85 rows; the next one stalls after 15 more.
    const s = await start(answering(onIds({ columns: ['ID'], rows: ids(), stallAfter: 100, deaf: true })));
    const idsTable = await table(s, 'IDS');
    const signal = AbortSignal.timeout(300);
    const seen = { rows: 0 };
    const { error, ms } = await rejection(count(s.readRows({ table: idsTable, columns: idsTable.columns }, signal), seen));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + ABORT_BUDGET_MS + SLACK_MS);
    expect(seen.rows).toBe(85);
    expect(server!.breaks).toBe(1);
    await expect(readSmall(s)).rejects.toMatchObject({ message: 'Connection lost: statement could not be interrupted; connection closed' });
    expect(await timed(s.close())).toBeLessThan(500);
  });

  it('breaks a read stalled mid-stream when the server answers the break, and stays usable', async () => {
    const s = await start(answering(onIds({ columns: ['ID'], rows: ids(), stallAfter: 100 })));
    const idsTable = await table(s, 'IDS');
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(count(s.readRows({ table: idsTable, columns: idsTable.columns }, signal)));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + SLACK_MS);
    expect(server!.running).toBe(0);
    expect(await readSmall(s)).toBe(2);
  });

  it('closes within the abort budget a session whose read stalled and ignores the break', async () => {
    const s = await start(answering(onIds({ columns: ['ID'], rows: ids(), stallAfter: 10, deaf: true })));
    const idsTable = await table(s, 'IDS');
    const reading = count(s.readRows({ table: idsTable, columns: idsTable.columns }, new AbortController().signal));
    reading.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(await timed(s.close())).toBeLessThan(ABORT_BUDGET_MS + SLACK_MS);
    await expect(reading).rejects.toMatchObject({ name: 'DatasourceQueryError' });
  });
});

describe('OracleConnector.open against a server that accepts and then stops answering', () => {
  const connector = new OracleConnector();
  let server: FakeOracleServer;

  afterEach(async () => {
    await server?.close();
  });

  const silentLogin = () => startFakeOracleServer({ password: FAKE_ORACLE_PASSWORD, stallLogin: 'auth' });
  const silentSetup = () => startFakeOracleServer({ password: FAKE_ORACLE_PASSWORD, answer: () => ({ hang: true, deaf: true }) });

  it('fails a login that is never answered with a timeout within the connect deadline, and cuts its socket', async () => {
    server = await silentLogin();
    const { error, ms } = await rejection(connector.open(fakeOracleDatasource(server.port), { connectTimeoutMs: 800 }));
    expect(error).toMatchObject({ name: 'DatasourceConnectError', reason: 'timeout' });
    expect(ms).toBeLessThan(800 + SLACK_MS);
    // The driver's own connectTimeout covers the Oracle Net handshake only: the login would hang on.
    await expect.poll(() => server.openConnections).toBe(0);
  });

  it('stops at once with the abort reason when aborted during the login, and cuts its socket', async () => {
    server = await silentLogin();
    const signal = AbortSignal.timeout(300);
    const { error, ms } = await rejection(connector.open(fakeOracleDatasource(server.port), { connectTimeoutMs: 10_000, signal }));
    expect(error).toBe(signal.reason);
    expect(ms).toBeLessThan(300 + SLACK_MS);
    await expect.poll(() => server.openConnections).toBe(0);
  });

  it('fails a session setup that is never answered within the connect deadline, and cuts its socket', async () => {
    server = await silentSetup();
    const { error, ms } = await rejection(connector.open(fakeOracleDatasource(server.port), { connectTimeoutMs: 800 }));
    expect(error).toMatchObject({ name: 'DatasourceConnectError', reason: 'timeout' });
    expect(ms).toBeLessThan(800 + SLACK_MS);
    expect(server.logins).toBe(1);
    await expect.poll(() => server.openConnections).toBe(0);
  });

  it('leaves no abandoned connection whose finalizer throws when it is garbage collected', async () => {
    server = await silentSetup();
    await rejection(connector.open(fakeOracleDatasource(server.port), { connectTimeoutMs: 300 }));
    await expect.poll(() => server!.openConnections).toBe(0);
    // node-oracledb registers each connection for finalization; its finalizer must find the cut
    // transport in error and send nothing (NJS-500 thrown there would be an uncaught exception).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });
});
