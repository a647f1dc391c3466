import { expect, it } from 'vitest';
import { RENDER_CHUNK_CHARS } from '../shared/row-batch-renderer.js';
import type { ColumnInfo, RowBatch } from '../shared/engine-connector.js';

export interface BatchRenderingSubject {
  /** The engine's createBatchRenderer, rows typed as its driver delivers them. */
  readonly render: (columns: ColumnInfo[]) => (rows: never) => RowBatch[];
  /** A bigint key, a text column whose name holds a quote, and a decimal(x,2). */
  readonly columns: ColumnInfo[];
  /** The three columns' names as the rendered rows spell them. */
  readonly names: readonly [key: string, text: string, amount: string];
  /** How the driver hands over the decimal the result writes "1.10". */
  readonly amount: string;
  /** How the decimal the driver hands over as "3.5" is written. */
  readonly halfAmount: string;
  /** A row of a projection without columns, as the driver delivers it. */
  readonly emptyRow: readonly unknown[];
}

const text = (batches: { json: Buffer }[]) => batches.map((batch) => batch.json.toString('utf8')).join(',');

/** The rendering checks every SQL engine's batch renderer passes, registered in the caller's describe. */
export function batchRenderingChecks(subject: BatchRenderingSubject): void {
  const { columns, names } = subject;
  const render = (cols: ColumnInfo[], rows: readonly (readonly unknown[])[]) => subject.render(cols)(rows as never);
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
