import { expect } from 'vitest';
import { ConnectorRegistry } from '../../src/datasource/connectors/connector-registry.js';
import type { ConnectorSession, EngineConnector } from '../../src/datasource/connectors/engine-connector.js';
import { DatasourceSessions } from '../../src/datasource/datasource-sessions.service.js';
import { DatasourceConnectError } from '../../src/datasource/datasource.error.js';
import { HostGuard } from '../../src/datasource/ssrf/host-guard.service.js';

/**
 * Aborts a read of `slow` (a view that sleeps far longer than the test) half a second in, then
 * reads `small` (two rows) on the same session: the statement was cancelled on the server and the
 * connection survived. A cancel that could not reach the server would have had to cut the socket.
 */
export async function expectAbortKeepsSession(session: ConnectorSession, schemas: readonly string[] | null): Promise<void> {
  const tables = (await session.discover(schemas)).tables;
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
  for await (const batch of session.readRows({ table: small, columns: small.columns }, new AbortController().signal)) rows += batch.rowCount;
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
  const guard = new HostGuard({ allowPrivateHosts: true }, async (host) => {
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
