import { expect } from 'vitest';
import { JSON_ROW_FRAME, type RowBatch, type RowFrame } from '../shared/engine-connector.js';
import { ndjsonRowFrame } from '../shared/row-frame.js';

/** The frame the NDJSON layout gives the connectors, as the specs name it. */
export const ndjsonFrame = ndjsonRowFrame;

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

/** A generic row renderer (createRowBatchRenderer through an engine's encoders) with a frame, of all columns or of none. */
export type FramedRenderer<R> = (frame: RowFrame | undefined, zeroColumns: boolean) => (rows: readonly R[]) => RowBatch[];

/**
 * The frame contract of a generic renderer: the JSON frame given renders exactly what no frame
 * renders; an NDJSON frame renders `rows` over more than `minBatches` chunks as expectNdjsonLike
 * holds them to the JSON rendering, and so does a projection of no column.
 */
export function expectRendererFrames<R>(render: FramedRenderer<R>, rows: readonly R[], emptyRows: readonly R[], minBatches: number): void {
  const joined = (batches: readonly RowBatch[]) => batches.map(text).join(',');
  const json = render(undefined, false)(rows);
  expect(joined(render(JSON_ROW_FRAME, false)(rows))).toBe(joined(json));
  const framed = render(ndjsonFrame('d', 't'), false)(rows);
  expect(framed.length).toBeGreaterThan(minBatches);
  expectNdjsonLike(framed, json, 'd', 't');
  expectNdjsonLike(render(ndjsonFrame('d', 't'), true)(emptyRows), render(undefined, true)(emptyRows), 'd', 't');
}

/** Every batch of a read, kept as handed on (none is released, so no buffer is written again). */
export async function allBatches(batches: AsyncIterable<RowBatch>): Promise<RowBatch[]> {
  const all: RowBatch[] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}
