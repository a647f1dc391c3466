import { connect, createServer, type Socket } from 'node:net';
import { expect } from 'vitest';
import { ABORT_BUDGET_MS } from '../../src/engine/connectors/shared/abortable-read.js';
import { ConnectorRegistry } from '../../src/engine/connectors/shared/connector-registry.js';
import type {
  ConnectorSession,
  EngineConnector,
  ResolvedDatasource,
  TableInfo,
} from '../../src/engine/connectors/shared/engine-connector.js';
import { DatasourceSessions } from '../../src/engine/sessions/datasource-sessions.js';
import { DatasourceConnectError } from '../../src/engine/errors/datasource-errors.js';
import { EgressGuard } from '../../src/engine/egress/egress-guard.js';
import type { TcpProxy } from './tcp-proxy.js';

/**
 * Aborts a read of `slow` (a view that sleeps far longer than the test) half a second in, then
 * reads `small` (two rows) on the same session: the statement was cancelled on the server and the
 * connection survived. A cancel that could not reach the server would have had to cut the socket.
 */
export async function expectAbortKeepsSession(session: ConnectorSession, schemas: readonly string[] | null): Promise<void> {
  const tables = (await session.discover(schemas, new AbortController().signal)).tables;
  const slow = tables.get('slow')!;
  const controller = new AbortController();
  const reading = (async () => {
    for await (const _ of session.readRows({ table: slow, columns: slow.columns }, controller.signal)) {
      // never reached: the view sleeps
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 500));
  controller.abort();
  await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
  const small = tables.get('small')!;
  let rows = 0;
  for await (const batch of session.readRows({ table: small, columns: small.columns }, new AbortController().signal))
    rows += batch.rowCount;
  expect(rows).toBe(2);
}

/**
 * DatasourceSessions over one connector, with a guard that allows private hosts and answers
 * names from `names` only (recording every lookup), as the egress specs need.
 */
export function guardedSessions(
  connector: EngineConnector,
  names: Readonly<Record<string, string[]>>,
  allowPlaintextPassword: boolean,
  lookups: string[] = [],
): DatasourceSessions {
  const guard = new EgressGuard({ allowPrivateHosts: true }, async (host) => {
    lookups.push(host);
    return names[host] ?? [];
  });
  return new DatasourceSessions(new ConnectorRegistry([connector]), guard, { allowPlaintextPassword });
}

/** The DatasourceConnectError an open fails with (a session that opens is closed and fails the test); its message never holds `secret`. */
export async function connectFailure(opening: Promise<ConnectorSession>, secret: string): Promise<DatasourceConnectError> {
  const error = await opening.then(
    async (session) => {
      await session.close();
      throw new Error('expected the connection to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatasourceConnectError);
  expect((error as Error).message).not.toContain(secret);
  return error as DatasourceConnectError;
}

/** What an abort may take beyond ABORT_BUDGET_MS on a loaded test machine. */
export const ABORT_SLACK_MS = 700;

/** Rejection of `work` (it must reject), with the milliseconds it took from `since`. */
async function rejection(work: Promise<unknown>, since: number): Promise<{ error: unknown; ms: number }> {
  const error = await work.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - since };
}

/**
 * The server behind `proxy` accepted the login, then goes silent: a discovery with a 500 ms
 * deadline rejects with the deadline's own reason within 500 ms + ABORT_BUDGET_MS (the cancel
 * cannot get through either, so the socket is cut), and closing the session afterwards is prompt.
 */
export async function expectSilentServerCannotHoldDiscovery(
  session: ConnectorSession,
  proxy: TcpProxy,
  schemas: readonly string[] | null,
): Promise<void> {
  proxy.stall();
  const signal = AbortSignal.timeout(500);
  const { error, ms } = await rejection(session.discover(schemas, signal), Date.now());
  expect(error).toBe(signal.reason);
  expect((error as Error).name).toBe('TimeoutError');
  expect(ms).toBeGreaterThanOrEqual(450);
  expect(ms).toBeLessThan(500 + ABORT_BUDGET_MS + ABORT_SLACK_MS);
  await expectPromptClose(session);
}

/**
 * Like expectSilentServerCannotHoldDiscovery, for a read that has already delivered rows: the
 * server goes silent mid-stream and the read is aborted 500 ms later.
 */
export async function expectSilentServerCannotHoldRead(session: ConnectorSession, proxy: TcpProxy, table: TableInfo): Promise<void> {
  const controller = new AbortController();
  const iterator = session.readRows({ table, columns: table.columns }, controller.signal)[Symbol.asyncIterator]();
  expect((await iterator.next()).done).toBe(false);
  proxy.stall();
  const reason = new Error('job deadline');
  let abortedAt = 0;
  const timer = setTimeout(() => {
    abortedAt = Date.now();
    controller.abort(reason);
  }, 500);
  try {
    const draining = (async () => {
      for (;;) if ((await iterator.next()).done) throw new Error('the read ended although the server went silent');
    })();
    const { error } = await rejection(draining, Date.now());
    expect(error).toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(ABORT_BUDGET_MS + ABORT_SLACK_MS);
  } finally {
    clearTimeout(timer);
  }
  await expectPromptClose(session);
}

async function expectPromptClose(session: ConnectorSession): Promise<void> {
  const started = Date.now();
  await session.close();
  expect(Date.now() - started).toBeLessThan(500);
}

/**
 * Aborts a discovery while its catalog query runs on the server (`running()` says when it does:
 * the fixture made it slow), then checks that the query is gone from the server at once and that
 * the session still reads `small` (two rows): the statement was cancelled, not the connection.
 */
export async function expectAbortedDiscoveryCancelled(
  session: ConnectorSession,
  schemas: readonly string[] | null,
  small: TableInfo,
  running: () => Promise<boolean>,
): Promise<void> {
  const controller = new AbortController();
  const discovering = session.discover(schemas, controller.signal);
  discovering.catch(() => undefined);
  await expect.poll(running, { timeout: 5_000, interval: 25 }).toBe(true);
  const started = Date.now();
  controller.abort();
  const { error, ms } = await rejection(discovering, started);
  expect((error as Error).name).toBe('AbortError');
  expect(ms).toBeLessThan(ABORT_BUDGET_MS + ABORT_SLACK_MS);
  // The cancel reaches the server even when it came too late to keep the session.
  await expect.poll(running, { timeout: 5_000, interval: 25 }).toBe(false);
  // A machine loaded enough to make the cancel connection miss the budget cuts the session
  // instead (the silent-server scenarios cover that path); otherwise the session reads on.
  if (ms >= ABORT_BUDGET_MS) return;
  let rows = 0;
  for await (const batch of session.readRows({ table: small, columns: small.columns }, new AbortController().signal))
    rows += batch.rowCount;
  expect(rows).toBe(2);
}

/**
 * A forwarder that lets a connection through until the client sends `marker` (e.g. the session
 * setup statement), then swallows everything that client sends: a server that accepted the login
 * and then never answered.
 */
export async function startSilentAfter(targetPort: number, marker: string): Promise<{ readonly port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let silent = false;
    client.on('data', (chunk: Buffer) => {
      if (!silent && chunk.includes(marker)) silent = true;
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * `open` against a server that took the login but never answers the setup that follows: it fails
 * as a timeout within the connect timeout (+ slack), and an abort stops it at once with the reason.
 */
export async function expectOpenBoundedAfterLogin(connector: EngineConnector, datasource: ResolvedDatasource, graceMs = 0): Promise<void> {
  const timeoutMs = 800;
  const timedOut = await rejection(connector.open(datasource, { connectTimeoutMs: timeoutMs }), Date.now());
  expect(timedOut.error).toBeInstanceOf(DatasourceConnectError);
  expect((timedOut.error as DatasourceConnectError).reason).toBe('timeout');
  expect(timedOut.ms).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(timedOut.ms).toBeLessThan(timeoutMs + graceMs + ABORT_SLACK_MS);

  const signal = AbortSignal.timeout(300);
  const aborted = await rejection(connector.open(datasource, { connectTimeoutMs: 10_000, signal }), Date.now());
  expect(aborted.error).toBe(signal.reason);
  expect(aborted.ms).toBeLessThan(300 + ABORT_SLACK_MS);
}
