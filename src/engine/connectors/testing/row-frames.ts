import { expect } from 'vitest';
import type { RowBatch, RowFrame } from '../shared/engine-connector.js';

/** NDJSON's frame for the rows of `table` of `datasource`: one `{"datasource":…,"table":…,"row":{…}}` a line. */
export function ndjsonFrame(datasource: string, table: string): RowFrame {
  return { open: `{"datasource":${JSON.stringify(datasource)},"table":${JSON.stringify(table)},"row":`, close: '}', separator: '\n' };
}

const text = (batch: RowBatch): string => batch.json.toString('utf8');

/**
 * Holds batches rendered with `ndjsonFrame(datasource, table)` to the JSON-frame rendering of the
 * same rows: every line of every batch parses to exactly `{datasource, table, row}`, a batch holds
 * as many lines as it counts rows, and the rows' bytes between the frame's open and close, joined
 * with commas, are the JSON-frame batches' bytes joined with commas. Bytes, not parsed values: a
 * 64-bit integer that JSON.parse rounds must still come out digit for digit.
 */
export function expectNdjsonLike(framed: readonly RowBatch[], json: readonly RowBatch[], datasource: string, table: string): void {
  const { open, close } = ndjsonFrame(datasource, table);
  const rows: string[] = [];
  for (const batch of framed) {
    const lines = text(batch).split('\n');
    expect(lines).toHaveLength(batch.rowCount);
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(['datasource', 'table', 'row']);
      expect([parsed.datasource, parsed.table]).toEqual([datasource, table]);
      expect(line.startsWith(open) && line.endsWith(close)).toBe(true);
      rows.push(line.slice(open.length, line.length - close.length));
    }
  }
  expect(rows.join(',')).toBe(json.map(text).join(','));
  expect(framed.reduce((n, b) => n + b.rowCount, 0)).toBe(json.reduce((n, b) => n + b.rowCount, 0));
}

/** Every batch of a read, kept as handed on (none is released, so no buffer is written again). */
export async function allBatches(batches: AsyncIterable<RowBatch>): Promise<RowBatch[]> {
  const all: RowBatch[] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}
