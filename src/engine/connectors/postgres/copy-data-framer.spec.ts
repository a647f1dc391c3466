import { describe, expect, it } from 'vitest';
import { ValueTooLargeError } from '../shared/read-budget.js';
import { CopyDataFramer, CopyProtocolError, type FramedEvent } from './copy-data-framer.js';

const message = (type: string, body: Buffer | string): Buffer => {
  const bytes = Buffer.from(body);
  const header = Buffer.alloc(5);
  header[0] = type.charCodeAt(0);
  header.writeUInt32BE(bytes.length + 4, 1);
  return Buffer.concat([header, bytes]);
};
const COPY_OUT_TEXT = message('H', Buffer.from([0, 0, 1, 0, 0]));
const ROWS = [message('d', '1\ta\n'), message('d', '2\tbb\n'), message('d', '3\tccc\n')];
const AFTER = Buffer.concat([message('C', 'COPY 3\0'), message('Z', 'I')]);

/** Every event of feeding `wire` in `size`-byte chunks, the rows joined back. */
function framedIn(wire: Buffer, size: number, remaining = Number.MAX_SAFE_INTEGER): { rows: Buffer; last?: FramedEvent } {
  const framer = new CopyDataFramer(() => remaining, 't');
  const rows: Buffer[] = [];
  let last: FramedEvent | undefined;
  for (let at = 0; at < wire.length && !last; at += size) {
    for (const event of framer.feed(wire.subarray(at, at + size))) {
      if (event.kind === 'rows') rows.push(event.messages);
      else last = { ...event, rest: Buffer.concat([event.rest, wire.subarray(at + size)]) };
    }
  }
  return { rows: Buffer.concat(rows), last };
}

describe('CopyDataFramer', () => {
  it('hands over whole CopyData messages and gives back to pg everything after CopyDone, however the socket cuts it', () => {
    const wire = Buffer.concat([COPY_OUT_TEXT, ...ROWS, message('c', ''), AFTER]);
    for (let size = 1; size <= wire.length; size++) {
      const { rows, last } = framedIn(wire, size);
      expect(rows.equals(Buffer.concat(ROWS)), `chunks of ${size}`).toBe(true);
      expect(last?.kind).toBe('done');
      expect((last as { rest: Buffer }).rest.equals(AFTER), `chunks of ${size}`).toBe(true);
    }
  });

  it('does not copy the messages of a chunk that holds them whole', () => {
    const chunk = Buffer.concat([COPY_OUT_TEXT, ...ROWS]);
    const [event] = new CopyDataFramer(() => Number.MAX_SAFE_INTEGER, 't').feed(chunk);
    expect(event.kind).toBe('rows');
    expect((event as { messages: Buffer }).messages.buffer).toBe(chunk.buffer);
  });

  it('skips notices and parameter changes between rows', () => {
    const wire = Buffer.concat([
      COPY_OUT_TEXT,
      ROWS[0],
      message('N', 'SNOTICE\0\0'),
      ROWS[1],
      message('S', 'TimeZone\0UTC\0'),
      ROWS[2],
      message('c', ''),
    ]);
    for (let size = 1; size <= wire.length; size++) expect(framedIn(wire, size).rows.equals(Buffer.concat(ROWS))).toBe(true);
  });

  it('hands an ErrorResponse, and all after it, back to pg', () => {
    const error = message('E', 'SERROR\0C57014\0Mcanceling statement\0\0');
    const wire = Buffer.concat([COPY_OUT_TEXT, ROWS[0], error, AFTER]);
    for (let size = 1; size <= wire.length; size++) {
      const { rows, last } = framedIn(wire, size);
      expect(rows.equals(ROWS[0])).toBe(true);
      expect(last?.kind).toBe('error');
      expect((last as { rest: Buffer }).rest.equals(Buffer.concat([error, AFTER])), `chunks of ${size}`).toBe(true);
    }
  });

  it('refuses a row larger than the result may still take as soon as its header says so', () => {
    const huge = Buffer.alloc(5);
    huge[0] = 0x64;
    huge.writeUInt32BE(10_000 + 4, 1);
    const framer = new CopyDataFramer(() => 1_000, 't');
    expect(() => framer.feed(Buffer.concat([COPY_OUT_TEXT, huge, Buffer.alloc(10)]))).toThrow(ValueTooLargeError);
    // The header itself cut by the socket: the check comes with the byte that completes it.
    const split = new CopyDataFramer(() => 1_000, 't');
    split.feed(Buffer.concat([COPY_OUT_TEXT, huge.subarray(0, 2)]));
    expect(split.feed(huge.subarray(2, 4))).toEqual([]);
    expect(() => split.feed(huge.subarray(4))).toThrow(ValueTooLargeError);
  });

  it('drops the answers of the pipeline before its COPY, however the socket cuts them, and hands an error among them to pg', () => {
    // ParseComplete, BindComplete, the prelude's row and its CommandComplete, then the COPY's own two.
    const prelude = Buffer.concat([message('1', ''), message('2', ''), message('D', '\0\x01\0\0\0\x01f'), message('C', 'SELECT 1\0')]);
    const before = Buffer.concat([prelude, message('1', ''), message('2', '')]);
    const wire = Buffer.concat([before, COPY_OUT_TEXT, ...ROWS, message('c', ''), AFTER]);
    for (let size = 1; size <= wire.length; size++) {
      const { rows, last } = framedIn(wire, size);
      expect(rows.equals(Buffer.concat(ROWS)), `chunks of ${size}`).toBe(true);
      expect((last as { rest: Buffer }).rest.equals(AFTER), `chunks of ${size}`).toBe(true);
    }
    const refused = Buffer.concat([
      message('1', ''),
      message('2', ''),
      message('E', 'SERROR\0C22P02\0Minvalid input\0\0'),
      message('Z', 'I'),
    ]);
    const { rows, last } = framedIn(refused, 3);
    expect(rows.length).toBe(0);
    expect(last?.kind).toBe('error');
    expect((last as { rest: Buffer }).rest.equals(refused.subarray(10))).toBe(true);
  });

  it('refuses a binary COPY and messages a COPY never sends', () => {
    expect(() => new CopyDataFramer(() => 1e9, 't').feed(message('H', Buffer.from([1, 0, 0])))).toThrow(CopyProtocolError);
    expect(() => new CopyDataFramer(() => 1e9, 't').feed(Buffer.concat([COPY_OUT_TEXT, message('D', 'x')]))).toThrow(CopyProtocolError);
    // A second CopyOutResponse, or CopyDone before the COPY started, is not the COPY we asked for.
    expect(() => new CopyDataFramer(() => 1e9, 't').feed(Buffer.concat([COPY_OUT_TEXT, COPY_OUT_TEXT]))).toThrow(CopyProtocolError);
    expect(() => new CopyDataFramer(() => 1e9, 't').feed(message('c', ''))).toThrow(CopyProtocolError);
  });
});
