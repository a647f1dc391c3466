import { expect } from 'vitest';
import type { ConnectorSession } from '../../src/datasource/connectors/engine-connector.js';

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
