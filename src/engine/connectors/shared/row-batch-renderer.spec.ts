import { describe, expect, it } from 'vitest';
import { expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import { JSON_ROW_FRAME, type RowFrame } from './engine-connector.js';
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

describe('createRowBatchRenderer with a row frame', () => {
  const names = ['id', 'body', 'note'];
  const encoders = [(v: string) => v, plain, asJson];
  const rows = [
    ['1', 'line one\nline "two"\r\n\t\\', ''],
    ['2', null, null],
    ['3', 'x'.repeat(RENDER_CHUNK_CHARS * 2), 'after a large value'],
    ...Array.from({ length: 3_000 }, (_, i) => [String(i + 4), `row ${i} "quoted"\n`, i % 3 === 0 ? null : '']),
    ['3004', '', 'last'],
  ];
  const render = (frame?: RowFrame) => createRowBatchRenderer(names, encoders, frame)(rows);

  it('renders the JSON frame, given or equal to it, byte for byte and chunk for chunk as no frame', () => {
    const none = render();
    expect(none.length).toBeGreaterThan(3);
    for (const frame of [JSON_ROW_FRAME, { open: '', close: '', separator: ',' }]) {
      const framed = render(frame);
      expect(framed.map((b) => [b.json.toString('utf8'), b.rowCount])).toEqual(none.map((b) => [b.json.toString('utf8'), b.rowCount]));
    }
  });

  it('writes NDJSON lines whose rows are the JSON rendering, large plain values and chunks included', () => {
    const framed = render(ndjsonFrame('d', 't'));
    expect(framed.length).toBeGreaterThan(3);
    expectNdjsonLike(framed, render(), 'd', 't');
  });

  it('frames rows of a zero-column projection', () => {
    const three = [[], [], []];
    const framed = createRowBatchRenderer([], [], ndjsonFrame('d', 't'))(three);
    expect(framed.map((b) => b.json.toString('utf8'))).toEqual([
      [
        '{"datasource":"d","table":"t","row":{}}',
        '{"datasource":"d","table":"t","row":{}}',
        '{"datasource":"d","table":"t","row":{}}',
      ].join('\n'),
    ]);
    expectNdjsonLike(framed, createRowBatchRenderer([], [])(three), 'd', 't');
  });
});
