import { describe, expect, it } from 'vitest';
import { type ColumnInfo, JSON_ROW_FRAME, type RowBatch, type RowFrame } from '../shared/engine-connector.js';
import { type ReadBudget, ValueTooLargeError } from '../shared/read-budget.js';
import { rowFrameBytes } from '../shared/row-frame.js';
import { expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import { planRawColumns } from './mysql-raw-columns.js';
import { MalformedRowError, RAW_CHUNK_BYTES, RawRowRenderer, type RenderedRows } from './mysql-raw-row-renderer.js';
import type { RawRowSource, RowPacket, WireField } from './mysql-raw-rows.js';
import type { MySqlValueKind } from './mysql-types.js';

/** A length-encoded value as the server writes it: 0xfb for NULL, 0xfc/0xfd/0xfe length prefixes. */
function lengthEncoded(value: string | Buffer | null, prefix?: 0xfc | 0xfd | 0xfe): Buffer {
  if (value === null) return Buffer.from([0xfb]);
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  const n = bytes.length;
  const tag = prefix ?? (n < 0xfb ? undefined : n < 0x10000 ? 0xfc : n < 0x1000000 ? 0xfd : 0xfe);
  if (tag === undefined) return Buffer.concat([Buffer.from([n]), bytes]);
  const width = tag === 0xfc ? 2 : tag === 0xfd ? 3 : 8;
  const header = Buffer.alloc(1 + width);
  header[0] = tag;
  header.writeUIntLE(n, 1, Math.min(width, 6));
  return Buffer.concat([header, bytes]);
}

/** A row packet inside a larger buffer (4-byte header before it, another packet's bytes after). */
function rowPacket(values: (string | Buffer | null)[], prefix?: 0xfc | 0xfd | 0xfe): RowPacket {
  const payload = Buffer.concat(values.map((v) => lengthEncoded(v, prefix)));
  const buffer = Buffer.concat([Buffer.from([0, 0, 0, 1]), payload, Buffer.from([0xfb, 0xfb])]);
  return { buffer, offset: 4, end: 4 + payload.length };
}

const NO_SOURCE: RawRowSource = {
  parse: () => {
    throw new Error('not expected: every value here is read from its bytes');
  },
};

const LONG = 3;
const LONGLONG = 8;
const NEWDECIMAL = 246;
const DATETIME = 12;
const VAR_STRING = 253;
const BLOB = 252;

const column = (name: string, kind: MySqlValueKind): ColumnInfo => ({
  name,
  dataType: kind,
  engineType: { dataType: kind, unsigned: false, kind },
});
const utf8Field = (columnType: number): WireField => ({ columnType, characterSet: 45, encoding: 'utf8' });
const binaryField = (columnType: number): WireField => ({ columnType, characterSet: 63, encoding: 'binary' });

const COLUMNS = [
  column('id', 'integer'),
  column('big', 'integer'),
  column('amount', 'decimal'),
  column('at', 'datetime'),
  column('note', 'text'),
  column('raw', 'binary'),
];
const FIELDS = [
  binaryField(LONG),
  binaryField(LONGLONG),
  binaryField(NEWDECIMAL),
  binaryField(DATETIME),
  utf8Field(VAR_STRING),
  binaryField(BLOB),
];

const budget = (over: Partial<ReadBudget> = {}): ReadBudget => ({
  batchBytes: 1 << 30,
  batchRows: 1_000_000,
  remainingBytes: () => Number.MAX_SAFE_INTEGER,
  ...over,
});
const renderer = (b = budget()) => new RawRowRenderer(planRawColumns(COLUMNS, FIELDS), NO_SOURCE, b, 't');
const json = (batch: RenderedRows): string => batch.chunks.map((c) => c.json.toString('utf8')).join(',');

/** The chunks of `rows` rendered in `frame` (absent: the renderer's default), taken every `batch` rows. */
function framedChunks(
  rows: readonly (string | Buffer | null)[][],
  frame?: RowFrame,
  batch = rows.length,
  plan = [COLUMNS, FIELDS] as const,
) {
  const r = new RawRowRenderer(planRawColumns(...plan), NO_SOURCE, budget(), 't', frame && rowFrameBytes(frame));
  const chunks: RowBatch[] = [];
  rows.forEach((row, i) => {
    r.render(rowPacket(row));
    if ((i + 1) % batch === 0) chunks.push(...r.take().chunks);
  });
  return [...chunks, ...r.take().chunks];
}
const chunkShape = (chunks: RowBatch[]) => chunks.map((c) => [c.json.toString('utf8'), c.rowCount]);

/** Chunk sizes of the first frame test below as the renderer cut them before frames existed (commit f9ef22c). */
const FRAMELESS_CUTS = [211, 202, 200, 199, 198, 197, 197, 197, 197, 196, 196, 196, 196, 196, 196, 26];

describe('RawRowRenderer', () => {
  it('renders row packets as the value encoders render mysql2 values', () => {
    const r = renderer();
    r.render(
      rowPacket(['0042', '-9223372036854775808', '-0.50', '2024-01-15 10:20:30.123456', 'He said "hi" \\\n😀', Buffer.from([0, 255])]),
    );
    r.render(rowPacket(['-0', null, '0.00', '0000-00-00 00:00:00', '', Buffer.alloc(0)]));
    expect(json(r.take())).toBe(
      '{"id":42,"big":-9223372036854775808,"amount":"-0.50","at":"2024-01-15T10:20:30.123456","note":"He said \\"hi\\" \\\\\\n😀","raw":"AP8="},' +
        '{"id":0,"big":null,"amount":"0.00","at":null,"note":"","raw":""}',
    );
  });

  it('reads every length prefix the protocol has', () => {
    for (const prefix of [0xfc, 0xfd, 0xfe] as const) {
      const r = renderer();
      const note = 'x'.repeat(300);
      r.render(rowPacket(['1', '2', '3', '2024-01-01', note, Buffer.from('a')], prefix));
      expect(JSON.parse('[' + json(r.take()) + ']')[0]).toMatchObject({ id: 1, big: 2, note });
    }
  });

  it('fails a value larger than what the result may still hold before rendering it, keeping nothing of its row', () => {
    const r = renderer(budget({ remainingBytes: () => 10 }));
    r.render(rowPacket(['1', '2', '3', '2024-01-01', 'short', null]));
    expect(() => r.render(rowPacket(['2', '2', '3', '2024-01-01', 'x'.repeat(11), null]))).toThrow(ValueTooLargeError);
    const batch = r.take();
    expect(batch.length).toBe(1);
    expect(json(batch)).toBe('{"id":1,"big":2,"amount":"3","at":"2024-01-01","note":"short","raw":null}');
  });

  it('reports the batch full at batchRows or once its values hold batchBytes', () => {
    const byRows = renderer(budget({ batchRows: 2 }));
    expect(byRows.render(rowPacket(['1', '1', '1', '2024-01-01', 'a', null]))).toBe(false);
    expect(byRows.render(rowPacket(['2', '1', '1', '2024-01-01', 'a', null]))).toBe(true);
    expect(byRows.take().length).toBe(2);
    expect(byRows.isFull).toBe(false);

    const byBytes = renderer(budget({ batchBytes: 100 }));
    expect(byBytes.render(rowPacket(['1', '1', '1', '2024-01-01', 'x'.repeat(60), null]))).toBe(false);
    expect(byBytes.render(rowPacket(['2', '1', '1', '2024-01-01', 'x'.repeat(60), null]))).toBe(true);
  });

  it('cuts a batch into chunks of whole rows, growing one for a row larger than a chunk', () => {
    const r = renderer();
    const rows: string[] = [];
    for (let i = 0; i < 3_000; i++) {
      const note = i === 1_500 ? 'é"'.repeat(RAW_CHUNK_BYTES) : `row ${i} "quoted"`;
      r.render(rowPacket([String(i), '7', '1.5', '2024-01-01 00:00:00', note, null]));
      rows.push(JSON.stringify({ id: i, big: 7, amount: '1.5', at: '2024-01-01T00:00:00', note, raw: null }));
    }
    const batch = r.take();
    expect(batch.length).toBe(3_000);
    expect(batch.chunks.length).toBeGreaterThan(2);
    expect(batch.chunks.reduce((n, c) => n + c.rowCount, 0)).toBe(3_000);
    for (const chunk of batch.chunks) expect(() => JSON.parse('[' + chunk.json.toString('utf8') + ']')).not.toThrow();
    expect(json(batch)).toBe(rows.join(','));
    expect(r.take().length).toBe(0);
  });

  it('renders the JSON frame, given or equal to it, chunk for chunk as before frames existed', () => {
    // Rows of varied sizes, so chunks are cut by bytes.
    const rows = Array.from({ length: 3_000 }, (_, i) => [String(i), '7', '1.5', '2024-01-01 00:00:00', 'é\u0001"\n'.repeat(i % 97), null]);
    const none = framedChunks(rows);
    expect(none.map((c) => c.rowCount)).toEqual(FRAMELESS_CUTS);
    expect(chunkShape(framedChunks(rows, JSON_ROW_FRAME))).toEqual(chunkShape(none));
    expect(chunkShape(framedChunks(rows, { open: '', close: '', separator: ',' }))).toEqual(chunkShape(none));
  });

  it('writes NDJSON lines whose rows are the JSON frame rows, over chunks and batches', () => {
    const rows = [
      ['0042', '-9223372036854775808', '-0.50', '2024-01-15 10:20:30.123456', 'He said "hi" \\\n😀', Buffer.from([0, 255])],
      ['-0', null, '0.00', '0000-00-00 00:00:00', '', Buffer.alloc(0)],
      ...Array.from({ length: 3_000 }, (_, i) => [String(i), '7', '1.5', '2024-01-01', `row ${i} "q"\n`.repeat(1 + (i % 9)), null]),
    ];
    const framed = framedChunks(rows, ndjsonFrame('d', 't'), 700);
    expect(framed.length).toBeGreaterThan(5);
    expectNdjsonLike(framed, framedChunks(rows, undefined, 700), 'd', 't');
    const none = [[], [], []];
    const noColumns = framedChunks(none, ndjsonFrame('d', 't'), 3, [[], []]);
    expect(noColumns.map((c) => c.json.toString('utf8'))).toEqual([
      new Array<string>(3).fill('{"datasource":"d","table":"t","row":{}}').join('\n'),
    ]);
    expectNdjsonLike(noColumns, framedChunks(none, undefined, 3, [[], []]), 'd', 't');
  });

  it('keeps room for a long frame: rows of worst-case escapes near the chunk size lose no byte', () => {
    // Every \x01 becomes a six-byte escape: a row's up-front room is exactly used.
    const table = 'ü'.repeat(150);
    const sizes = [
      ...Array.from({ length: 1_500 }, (_, i) => 150 + ((i * 37) % 211)),
      ...Array.from({ length: 40 }, (_, i) => Math.floor(RAW_CHUNK_BYTES / 6) - 120 + i * 3),
      ...Array.from({ length: 300 }, (_, i) => 600 + ((i * 53) % 130)),
    ];
    const rows = sizes.map((n, i) => [String(i), null, '1', '2024-01-01', '\u0001'.repeat(n), null]);
    const framed = framedChunks(rows, ndjsonFrame('d', table));
    expect(framed.length).toBeGreaterThan(20);
    expectNdjsonLike(framed, framedChunks(rows), 'd', table);
  });

  it('refuses a packet that does not hold the values its result announced', () => {
    const short = rowPacket(['1', '2', '3']);
    expect(() => renderer().render(short)).toThrow(MalformedRowError);
    const overrun = rowPacket(['1', '2', '3', '2024-01-01', 'abc', null]);
    expect(() => renderer().render({ ...overrun, end: overrun.end - 3 })).toThrow(MalformedRowError);
  });

  it('reuses a chunk buffer once its batch was handed back, and only then', () => {
    const r = renderer();
    const big = 'x'.repeat(1_000);
    const fill = () => {
      for (let i = 0; i < (4 * RAW_CHUNK_BYTES) / 900; i++)
        r.render(rowPacket(['1', '2', '3.00', '2024-01-15 10:20:30', big, Buffer.alloc(0)]));
      return r.take().chunks;
    };
    const first = fill();
    const second = fill();
    const buffers = (chunks: readonly { json: Buffer }[]) => chunks.map((c) => c.json.buffer);
    expect(buffers(second).some((b) => buffers(first).includes(b))).toBe(false);
    for (const chunk of first) {
      chunk.release?.();
      chunk.release?.();
    }
    const third = fill();
    // The buffers handed back are written again (each once); those still out are not.
    const reused = buffers(third).filter((b) => buffers(first).includes(b));
    expect(reused.length).toBeGreaterThan(0);
    expect(new Set(reused).size).toBe(reused.length);
    expect(buffers(third).some((b) => buffers(second).includes(b))).toBe(false);
  });
});
