import { expect, it } from 'vitest';
import { RENDER_CHUNK_CHARS } from '../shared/row-batch-renderer.js';
import type { ColumnInfo, RowBatch } from '../shared/engine-connector.js';
import { expectRendererFrames, type FramedRenderer } from './row-frames.js';

/** The engine's createBatchRenderer, rows typed as its driver delivers them. */
export type BatchRender = (columns: ColumnInfo[]) => (rows: never) => RowBatch[];

export interface RenderedValues {
  /** How the driver hands over the decimal the result writes "1.10". */
  readonly amount: string;
  /** How the decimal the driver hands over as "3.5" is written. */
  readonly halfAmount: string;
  /** A row of a projection without columns, as the driver delivers it. */
  readonly emptyRow: readonly unknown[];
}

const text = (batches: { json: Buffer }[]) => batches.map((batch) => batch.json.toString('utf8')).join(',');

/**
 * The rendering checks every SQL engine's batch renderer passes, registered in the caller's
 * describe: `columns` are a bigint key, a text column whose name holds a quote, and a decimal(x,2).
 */
export function batchRenderingChecks(renderer: BatchRender, columns: ColumnInfo[], subject: RenderedValues): void {
  const names = columns.map((c) => c.name);
  const render = (cols: ColumnInfo[], rows: readonly (readonly unknown[])[]) => renderer(cols)(rows as never);
  const [key, name, amount] = names.map((n) => JSON.stringify(n));

  it('renders rows as JSON objects in projection order, joined with commas, NULL as null', () => {
    const batches = render(columns, [
      ['9007199254740993', 'a', subject.amount],
      ['2', null, null],
    ]);
    expect(batches).toHaveLength(1);
    expect(batches[0].rowCount).toBe(2);
    const json = text(batches);
    expect(json).toBe(`{${key}:9007199254740993,${name}:"a",${amount}:"1.10"},{${key}:2,${name}:null,${amount}:null}`);
    expect(JSON.parse('[' + json + ']')[1]).toEqual({ [names[0]]: 2, [names[1]]: null, [names[2]]: null });
  });

  it('renders an empty batch as no chunks and a projection without columns as {}', () => {
    expect(render(columns, [])).toEqual([]);
    expect(text(render([], [subject.emptyRow, subject.emptyRow]))).toBe('{},{}');
  });

  it('cuts a large batch into chunks of about RENDER_CHUNK_CHARS that join back into the same rows', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => [String(i), 'x'.repeat(100) + 'é', `${i}.5`]);
    const batches = render(columns, rows);
    expect(batches.length).toBeGreaterThan(2);
    expect(batches.reduce((sum, batch) => sum + batch.rowCount, 0)).toBe(2000);
    for (const batch of batches.slice(0, -1)) expect(batch.json.length).toBeLessThan(RENDER_CHUNK_CHARS * 2);
    const parsed = JSON.parse('[' + text(batches) + ']') as Record<string, unknown>[];
    expect(parsed.map((row) => row[names[0]])).toEqual(rows.map((_, i) => i));
    expect(parsed[3][names[2]]).toBe(subject.halfAmount);
  });
}

/** The NDJSON framing check of a renderer whose columns are those of batchRenderingChecks. */
export function ndjsonFramingCheck<R>(render: FramedRenderer<R>): void {
  // oxlint-disable-next-line vitest/expect-expect -- expectRendererFrames asserts; the rule knows that name only in specs.
  it('frames rows as NDJSON lines holding each row as the JSON frame renders it, across chunks', () => {
    const rows = [
      ['9007199254740993', 'line\none "quoted" \\ \u0001', '1.10'],
      ['2', '', null],
      ['3', null, null],
      ...Array.from({ length: 2000 }, (_, i) => [String(i + 4), 'x'.repeat(100) + 'é\n', `${i}.5`]),
    ];
    expectRendererFrames(render, rows as never, [[], []] as never, 2);
  });
}
