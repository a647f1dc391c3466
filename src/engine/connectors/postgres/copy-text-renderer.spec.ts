import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ColumnInfo, JSON_ROW_FRAME, type RowBatch, type RowFrame } from '../shared/engine-connector.js';
import { rowFrameBytes } from '../shared/row-frame.js';
import { expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import { CopyDataFramer } from './copy-data-framer.js';
import { copyColumns } from './copy-text-columns.js';
import { COPY_BATCH_BYTES, CopyFormatError, CopyTextRenderer } from './copy-text-renderer.js';
import { PgOid } from './postgres-types.js';

const column = (name: string, typeOid: number, castType: string, category = 'X'): ColumnInfo => ({
  name,
  dataType: castType,
  engineType: { typeOid, category, castType },
});
const COLUMNS = [
  column('id', PgOid.int8, 'bigint', 'N'),
  column('note', PgOid.text, 'text', 'S'),
  column('at', PgOid.timestamptz, 'timestamptz', 'D'),
  column('ok', PgOid.bool, 'boolean', 'B'),
];
const BUDGET = { batchBytes: 4 << 20, batchRows: 2_000, remainingBytes: () => Number.MAX_SAFE_INTEGER };

const renderer = (columns = COLUMNS, budget = BUDGET) => new CopyTextRenderer(copyColumns(columns, { bytesMayNotBeUtf8: false }), budget);

const message = (type: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(5);
  header[0] = type.charCodeAt(0);
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};

/** CopyData messages, one per row of COPY text (each row ends with its newline). */
const copyData = (text: Buffer): Buffer => {
  const rows: Buffer[] = [];
  for (let start = 0; start < text.length;) {
    const end = text.indexOf(10, start) + 1 || text.length;
    rows.push(message('d', text.subarray(start, end)));
    start = end;
  }
  return Buffer.concat(rows);
};

/** What the server sends for a COPY TO: CopyOutResponse, the rows, CopyDone, then what pg parses. */
const copyProtocol = (text: Buffer): Buffer =>
  Buffer.concat([
    message('H', Buffer.from([0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0])),
    copyData(text),
    message('c', Buffer.alloc(0)),
    message('C', Buffer.from('COPY 4\0')),
  ]);

/** Every batch of COPY text rendered in `frame` (absent: the renderer's default). */
const framedBatches = (text: Buffer, frame?: RowFrame, columns = COLUMNS, budget = BUDGET): RowBatch[] => {
  const r = new CopyTextRenderer(copyColumns(columns, { bytesMayNotBeUtf8: false }), budget, frame && rowFrameBytes(frame));
  return [...r.push(copyData(text)), ...r.end()];
};
const batchShape = (batches: RowBatch[]) => batches.map((b) => [b.json.toString('utf8'), b.rowCount]);

/** Renders the protocol bytes cut into `chunks` through the framer, as a COPY read does. */
function renderAll(chunks: readonly Buffer[], columns = COLUMNS): { json: string; rows: number } {
  const r = renderer(columns);
  const framer = new CopyDataFramer(() => Number.MAX_SAFE_INTEGER, 'items');
  const parts: string[] = [];
  let rows = 0;
  let done = false;
  const take = (batches: RowBatch[]) => {
    for (const batch of batches) {
      parts.push(batch.json.toString('utf8'));
      rows += batch.rowCount;
    }
  };
  for (const chunk of chunks) {
    if (done) break;
    for (const event of framer.feed(chunk)) {
      if (event.kind === 'rows') take(r.push(event.messages));
      else done = event.kind === 'done';
    }
  }
  if (!done) throw new Error('no CopyDone');
  take(r.end());
  return { json: parts.join(','), rows };
}

/** COPY text of one text value, as COPY TO writes it. */
const copyEscape = (text: string): string =>
  text.replace(
    /[\\\b\f\n\r\t\v]/g,
    (c) => ({ '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' })[c] as string,
  );

/** Batch sizes of the first test below as the renderer cut them before frames existed (commit f9ef22c). */
const FRAMELESS_CUTS = [224, 207, 204, 202, 201, 200, 199, 199, 198, 198, 198, 221, 208, 204, 137];

describe('CopyTextRenderer', () => {
  const STREAM = Buffer.from(
    '1\tplain\t2026-01-01 00:00:00+00\tt\n' +
      '-9223372036854775808\t\\N\t2026-01-01 10:20:30.123456+00\tf\n' +
      '3\ttab\\there \\\\ "q" \x01 é😀\tinfinity\t\\N\n' +
      '4\t\t0044-03-15 12:00:00+00 BC\tt\n',
    'utf8',
  );
  const EXPECTED =
    '{"id":1,"note":"plain","at":"2026-01-01T00:00:00Z","ok":true},' +
    '{"id":-9223372036854775808,"note":null,"at":"2026-01-01T10:20:30.123456Z","ok":false},' +
    `{"id":3,"note":${JSON.stringify('tab\there \\ "q" \x01 é😀')},"at":"infinity","ok":null},` +
    '{"id":4,"note":"","at":"0044-03-15 12:00:00+00 BC","ok":true}';

  it('renders COPY text rows as the JSON objects of the result contract', () => {
    expect(renderAll([copyProtocol(STREAM)])).toEqual({ json: EXPECTED, rows: 4 });
  });

  it('gives the same bytes however the socket cuts the stream into chunks', () => {
    const wire = copyProtocol(STREAM);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: wire.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), wire.length];
        const chunks = points.slice(1).map((end, i) => wire.subarray(points[i], end));
        expect(renderAll(chunks).json).toBe(EXPECTED);
      }),
      { seed: 20261201, numRuns: 300 },
    );
    for (let size = 1; size <= 12; size++) {
      const chunks = Array.from({ length: Math.ceil(wire.length / size) }, (_, i) => wire.subarray(i * size, (i + 1) * size));
      expect(renderAll(chunks).json).toBe(EXPECTED);
    }
  });

  it('escapes any text exactly as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        // PostgreSQL text holds no NUL and no lone surrogates.
        const value = text.replace(/\u0000/g, '').replace(/[\ud800-\udfff]/g, 'x');
        const { json } = renderAll([copyProtocol(Buffer.from(`7\t${copyEscape(value)}\t\\N\t\\N\n`, 'utf8'))]);
        expect(json).toBe(`{"id":7,"note":${JSON.stringify(value)},"at":null,"ok":null}`);
      }),
      { seed: 20261201, numRuns: 500 },
    );
  });

  it('reuses the buffer of a batch handed back, and only then', () => {
    const r = renderer(COLUMNS, { ...BUDGET, batchRows: 1 });
    const [first, second] = r.push(copyData(STREAM));
    expect(first.json.buffer).not.toBe(second.json.buffer);
    first.release?.();
    first.release?.();
    const later = r.push(copyData(STREAM));
    // The third batch was rendered into the first one's memory; nothing else was.
    expect(later.filter((b) => b.json.buffer === first.json.buffer)).toHaveLength(1);
    expect(later.some((b) => b.json.buffer === second.json.buffer)).toBe(false);
  });

  it('hands batches on at batchRows rows', () => {
    const r = renderer(COLUMNS, { ...BUDGET, batchRows: 2 });
    const batches = [...r.push(copyData(Buffer.concat([STREAM, STREAM]))), ...r.end()];
    expect(batches.map((b) => b.rowCount)).toEqual([2, 2, 2, 2]);
  });

  it('renders the JSON frame, given or equal to it, batch for batch as before frames existed', () => {
    // Rows of varied sizes, so batches are cut by bytes as well as by rows.
    const text = Buffer.from(
      Array.from({ length: 3_000 }, (_, i) => `${i}\t${copyEscape('é\u0001"\n'.repeat(i % 97))}\t2026-01-01 00:00:00+00\tt\n`).join(''),
    );
    const none = framedBatches(text);
    // The cut points the renderer had before frames existed.
    expect(none.map((b) => b.rowCount)).toEqual(FRAMELESS_CUTS);
    expect(batchShape(framedBatches(text, JSON_ROW_FRAME))).toEqual(batchShape(none));
    expect(batchShape(framedBatches(text, { open: '', close: '', separator: ',' }))).toEqual(batchShape(none));
  });

  it('writes NDJSON lines whose rows are the JSON frame rows, over batches and slow paths', () => {
    const text = Buffer.concat(Array.from({ length: 50 }, () => STREAM));
    const budget = { ...BUDGET, batchRows: 7 };
    const framed = framedBatches(text, ndjsonFrame('d', 'items'), COLUMNS, budget);
    expect(framed.length).toBeGreaterThan(20);
    expectNdjsonLike(framed, framedBatches(text, undefined, COLUMNS, budget), 'd', 'items');
    const noColumns = framedBatches(Buffer.from('\n\n\n'), ndjsonFrame('d', 'items'), []);
    expect(noColumns.map((b) => b.json.toString('utf8'))).toEqual([
      new Array<string>(3).fill('{"datasource":"d","table":"items","row":{}}').join('\n'),
    ]);
    expectNdjsonLike(noColumns, framedBatches(Buffer.from('\n\n\n'), undefined, []), 'd', 'items');
  });

  it('keeps room for a long frame: rows of worst-case escapes near the batch size lose no byte', () => {
    // Every \x01 becomes a six-byte escape: the renderer's worst case, so its room is tight.
    const table = 'ü'.repeat(150);
    const sizes = [
      ...Array.from({ length: 1_500 }, (_, i) => 150 + ((i * 37) % 211)),
      ...Array.from({ length: 40 }, (_, i) => Math.floor(COPY_BATCH_BYTES / 6) - 120 + i * 3),
    ];
    const text = Buffer.from(sizes.map((n, i) => `${i}\t${'\u0001'.repeat(n)}\t\\N\tf\n`).join(''));
    const framed = framedBatches(text, ndjsonFrame('d', table));
    expect(framed.length).toBeGreaterThan(40);
    expectNdjsonLike(framed, framedBatches(text), 'd', table);
  });

  it('fails on a stream COPY TO never writes: a short row, an unknown escape, a message not one whole row', () => {
    expect(() => renderAll([copyProtocol(Buffer.from('1\tonly two\n'))])).toThrow(CopyFormatError);
    expect(() => renderAll([copyProtocol(Buffer.from('1\ta\\x41\t\\N\t\\N\n'))])).toThrow(CopyFormatError);
    expect(() => renderer().push(message('d', Buffer.from('1\ta\t\\N\t\\N')))).toThrow(CopyFormatError);
    expect(() => renderer().push(message('d', Buffer.from('1\ta\t\\N\t\\N\n2\tb\t\\N\t\\N\n')))).toThrow(CopyFormatError);
  });
});
