import type { RowBatch } from '../shared/engine-connector.js';

/** The rejection of `work` and how long it took to come; throws when `work` resolves. */
export async function rejection(work: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await work;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected a rejection');
}

/** How long `work` took to resolve, in ms. */
export async function timed(work: Promise<unknown>): Promise<number> {
  const started = Date.now();
  await work;
  return Date.now() - started;
}

/** Reads every batch, counting rows into `seen` as they come (so a caller sees them after a rejection too). */
export async function countRows(batches: AsyncIterable<RowBatch>, seen: { rows: number } = { rows: 0 }): Promise<number> {
  for await (const batch of batches) seen.rows += batch.rowCount;
  return seen.rows;
}
