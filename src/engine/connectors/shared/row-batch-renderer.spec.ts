import { describe, expect, it } from 'vitest';
import { createRowBatchRenderer, plainTextEncoder, RENDER_CHUNK_CHARS } from './row-batch-renderer.js';

const asJson = (text: string) => JSON.stringify(text);
const plain = plainTextEncoder((text: string) => JSON.stringify(text));
const rendered = (batches: { json: Buffer; rowCount: number }[]) => `[${batches.map((b) => b.json.toString('utf8')).join(',')}]`;

describe('createRowBatchRenderer', () => {
  const names = ['id', 'body', 'note'];
  const rows = [
    ['1', 'x'.repeat(RENDER_CHUNK_CHARS * 3), 'small'],
    ['2', 'needs "escaping"\n'.repeat(RENDER_CHUNK_CHARS / 8), null],
    ['3', 'ação ✓ '.repeat(RENDER_CHUNK_CHARS), 'ü'],
    ['4', 'short', 'y'.repeat(RENDER_CHUNK_CHARS)],
    ['5', null, ''],
  ] as const;
  const expected = rows.map(([id, body, note]) => ({ id: Number(id), body, note }));

  it('renders large plain-text values straight into the chunk bytes, identical to JSON.stringify', () => {
    const viaPlain = createRowBatchRenderer(names, [(v: string) => v, plain, plain])(rows as unknown as string[][]);
    const viaStringify = createRowBatchRenderer(names, [(v: string) => v, asJson, asJson])(rows as unknown as string[][]);
    expect(rendered(viaPlain)).toBe(rendered(viaStringify));
    expect(JSON.parse(rendered(viaPlain))).toEqual(expected);
  });

  it('keeps whole rows per chunk and counts them, a large value closing its chunk', () => {
    const batches = createRowBatchRenderer(names, [(v: string) => v, plain, plain])(rows as unknown as string[][]);
    expect(batches.reduce((n, b) => n + b.rowCount, 0)).toBe(rows.length);
    for (const batch of batches) expect(() => JSON.parse(`[${batch.json.toString('utf8')}]`)).not.toThrow();
    expect(batches[0].rowCount).toBe(1);
  });
});
