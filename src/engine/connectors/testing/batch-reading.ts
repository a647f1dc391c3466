import { expect } from 'vitest';
import type { FilterCondition } from '../../request/data-request.js';
import type { ConnectorSession, RowBatch, TableInfo } from '../shared/engine-connector.js';

export interface CollectedBatches {
  /** The batches' JSON joined with commas: the rows as a JSON array would hold them, without brackets. */
  readonly json: string;
  readonly rowCount: number;
  readonly batches: number;
}

export async function collectBatches(batches: AsyncIterable<RowBatch>): Promise<CollectedBatches> {
  const parts: string[] = [];
  let rowCount = 0;
  for await (const batch of batches) {
    parts.push(batch.json.toString('utf8'));
    rowCount += batch.rowCount;
  }
  return { json: parts.join(','), rowCount, batches: parts.length };
}

export async function countRows(batches: AsyncIterable<RowBatch>): Promise<number> {
  return (await collectBatches(batches)).rowCount;
}

/** Every row of `table` through `session`, counted: the check that a session is still usable after an abort. */
export function countTableRows(session: ConnectorSession, table: TableInfo): Promise<number> {
  return countRows(session.readRows({ table, columns: table.columns }, new AbortController().signal));
}

/** Polls `check` until it holds; how long that took, or a throw once `timeoutMs` is spent. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 25): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return Date.now() - started;
}

export interface KeyOrderedRead {
  readonly rows: number;
  readonly minBatches: number;
  readonly maxBatchRows: number;
  /** The key column as the rows spell it; keys run 1, 2, 3… */
  readonly key?: string;
}

/**
 * Reads all of `table` and holds it to stream in bounded batches: at least `minBatches`, none
 * over `maxBatchRows`, every key from 1 on in order across batches (the tables are filled in
 * reverse key order, so the order is the read's, not the insert's).
 */
export async function expectKeyOrderedBatches(session: ConnectorSession, table: TableInfo, expected: KeyOrderedRead): Promise<void> {
  const key = expected.key ?? 'id';
  let rows = 0;
  let batches = 0;
  let largest = 0;
  let expectedId = 1;
  for await (const batch of session.readRows({ table, columns: table.columns }, new AbortController().signal)) {
    batches++;
    rows += batch.rowCount;
    largest = Math.max(largest, batch.rowCount);
    const ids = (JSON.parse('[' + batch.json.toString('utf8') + ']') as Record<string, number>[]).map((r) => r[key]);
    expect(ids[0]).toBe(expectedId);
    expectedId = ids[ids.length - 1] + 1;
  }
  expect(rows).toBe(expected.rows);
  expect(batches).toBeGreaterThanOrEqual(expected.minBatches);
  expect(largest).toBeLessThanOrEqual(expected.maxBatchRows);
}

/** Takes two batches of `table` and breaks off the read, as a consumer that has seen enough. */
export async function expectStopAfterTwoBatches(session: ConnectorSession, table: TableInfo): Promise<void> {
  let batches = 0;
  for await (const batch of session.readRows({ table, columns: table.columns }, new AbortController().signal)) {
    expect(batch.rowCount).toBeGreaterThan(0);
    if (++batches === 2) break;
  }
  expect(batches).toBe(2);
}

/** Aborts a read of `table` after its first batch: the next one rejects with the abort's own reason. */
export async function expectAbortReasonBetweenBatches(session: ConnectorSession, table: TableInfo): Promise<void> {
  const controller = new AbortController();
  const reason = new Error('job timed out');
  const iterator = session.readRows({ table, columns: table.columns }, controller.signal)[Symbol.asyncIterator]();
  try {
    await iterator.next();
    controller.abort(reason);
    await expect(iterator.next()).rejects.toBe(reason);
  } finally {
    await iterator.return?.();
  }
}

export interface PromptAbort {
  /** Resolves once the server runs the read, so that the abort meets a running statement. */
  readonly started: () => Promise<unknown>;
  readonly withinMs: number;
}

/** Aborts a read of `table` (a view that never ends) while the server runs it: it rejects as AbortError within `withinMs`. */
export async function expectPromptAbort(session: ConnectorSession, table: TableInfo, abort: PromptAbort): Promise<void> {
  const controller = new AbortController();
  const reading = collectBatches(session.readRows({ table, columns: table.columns }, controller.signal));
  // A read that fails before the abort is a failure of its own, not an unhandled rejection.
  reading.catch(() => undefined);
  await abort.started();
  const abortedAt = Date.now();
  controller.abort();
  await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
  expect(Date.now() - abortedAt).toBeLessThan(abort.withinMs);
}

/** With an already aborted signal, neither a read nor (through `reopen`) a new session starts. */
export async function expectRefusedWhenAborted(
  session: ConnectorSession,
  table: TableInfo,
  reopen: (signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const controller = new AbortController();
  controller.abort();
  const iterator = session.readRows({ table, columns: table.columns }, controller.signal)[Symbol.asyncIterator]();
  await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
  await expect(reopen(controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
}

/**
 * Closes `session` with a read of `table` left after its first batch: the close takes less than
 * `withinMs`. Returns the read, which the caller holds to fail once it has checked the server.
 */
export async function closeMidRead(session: ConnectorSession, table: TableInfo, withinMs: number): Promise<AsyncIterator<RowBatch>> {
  const iterator = session.readRows({ table, columns: table.columns }, new AbortController().signal)[Symbol.asyncIterator]();
  await iterator.next();
  const started = Date.now();
  await session.close();
  expect(Date.now() - started).toBeLessThan(withinMs);
  return iterator;
}

/** The keys of the rows of `table` that `filters` keep, in the order the read returns them. */
export async function keptIds(
  session: ConnectorSession,
  table: TableInfo,
  filters: Record<string, FilterCondition>,
  key = 'id',
): Promise<number[]> {
  const column = table.columns.find((c) => c.name === key)!;
  const { json } = await collectBatches(session.readRows({ table, columns: [column], filters }, new AbortController().signal));
  return (JSON.parse('[' + json + ']') as Record<string, number>[]).map((r) => r[key]);
}

/** Closes `session` twice, the second close a no-op; a closed session refuses to discover. */
export async function expectClosesTwice(session: ConnectorSession): Promise<void> {
  await session.close();
  await expectClosedForGood(session);
}

/** A closed session: closing again is a no-op, discovering is refused. */
export async function expectClosedForGood(session: ConnectorSession): Promise<void> {
  await expect(session.close()).resolves.toBeUndefined();
  const discovering = session.discover(null, new AbortController().signal);
  await expect(discovering).rejects.toMatchObject({ name: 'DatasourceQueryError', message: 'Session is closed' });
}
