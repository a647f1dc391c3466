import { ValueTooLargeError } from '../shared/read-budget.js';

const COPY_DATA = 0x64; // d
const COPY_DONE = 0x63; // c
const COPY_OUT_RESPONSE = 0x48; // H
const ERROR_RESPONSE = 0x45; // E
/** Messages the server may send in the middle of a COPY: notices, parameter changes, notifications. */
const INTERLEAVED = new Set([0x4e /* N */, 0x53 /* S */, 0x41 /* A */]);
/**
 * The answers of an extended-protocol pipeline before its COPY starts (CopyOutStream's prelude):
 * ParseComplete, BindComplete, the prelude's DataRow and CommandComplete. Dropped.
 */
const BEFORE_COPY = new Set([0x31 /* 1 */, 0x32 /* 2 */, 0x44 /* D */, 0x43 /* C */]);
const HEADER_BYTES = 5;

/** A stream that is not the COPY text we asked for. */
export class CopyProtocolError extends Error {}

export type FramedEvent =
  /** Whole CopyData messages, their headers included, as the server sent them (a view of its chunk). */
  | { readonly kind: 'rows'; readonly messages: Buffer }
  /** CopyDone was read: `rest` (what followed it) belongs to pg's own parser again. */
  | { readonly kind: 'done'; readonly rest: Buffer }
  /** An ErrorResponse begins `rest`: pg's parser reads it and fails the statement. */
  | { readonly kind: 'error'; readonly rest: Buffer };

/**
 * Splits the socket's bytes during `COPY … TO STDOUT` into runs of whole CopyData messages, without
 * copying them: the renderer reads rows straight out of the socket's chunks and skips the five-byte
 * headers itself. Only a message cut by a chunk boundary is copied, and one that would be larger
 * than what the result may still take fails with ValueTooLargeError as soon as its header says so.
 */
export class CopyDataFramer {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The first bytes of the held message, for its type and length. */
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private finished = false;
  /** CopyOutResponse was read: from now on only CopyData, interleaved messages and CopyDone. */
  private started = false;

  constructor(
    private readonly remainingBytes: () => number,
    private readonly table: string,
  ) {}

  feed(chunk: Buffer): FramedEvent[] {
    if (this.finished) throw new CopyProtocolError('data after the end of the COPY');
    const events: FramedEvent[] = [];
    let o = this.partialBytes > 0 ? this.completePartial(chunk, events) : 0;
    if (o < 0) return events;
    const length = chunk.length;
    let runStart = o;
    while (o < length) {
      const type = chunk[o];
      if (type === ERROR_RESPONSE) {
        if (o > runStart) events.push({ kind: 'rows', messages: chunk.subarray(runStart, o) });
        return this.finish(events, { kind: 'error', rest: chunk.subarray(o) });
      }
      if (o + HEADER_BYTES > length) break;
      const total = 1 + readLength(chunk, o + 1);
      if (type === COPY_DATA) {
        if (o + total > length) break;
        o += total;
        continue;
      }
      if (o > runStart) events.push({ kind: 'rows', messages: chunk.subarray(runStart, o) });
      runStart = o;
      if (o + total > length) break;
      this.control(type, chunk.subarray(o, o + total));
      o += total;
      runStart = o;
      if (type === COPY_DONE) return this.finish(events, { kind: 'done', rest: chunk.subarray(o) });
    }
    if (o > runStart) events.push({ kind: 'rows', messages: chunk.subarray(runStart, o) });
    if (o < length) this.hold(chunk.subarray(o));
    return events;
  }

  /**
   * Completes the message the last chunk cut, from the start of `chunk`. Returns where the walk
   * goes on, or -1 when this chunk ended the COPY or is still inside that message. The held pieces
   * are joined once, when the message is whole: a row spread over many chunks is copied once, not
   * once per chunk.
   */
  private completePartial(chunk: Buffer, events: FramedEvent[]): number {
    if (this.header[0] === ERROR_RESPONSE) {
      const held = Buffer.concat(this.partial);
      this.reset();
      this.finish(events, { kind: 'error', rest: Buffer.concat([held, chunk]) });
      return -1;
    }
    const headerHeld = Math.min(this.partialBytes, HEADER_BYTES);
    if (headerHeld + chunk.length < HEADER_BYTES) {
      this.hold(chunk);
      return -1;
    }
    // The header's missing bytes are the chunk's first: the same bytes hold() would put there.
    chunk.copy(this.header, headerHeld, 0, HEADER_BYTES - headerHeld);
    const needed = 1 + readLength(this.header, 1) - this.partialBytes;
    if (chunk.length < needed) {
      this.hold(chunk);
      return -1;
    }
    const message = Buffer.concat([...this.partial, chunk.subarray(0, needed)]);
    this.reset();
    if (message[0] === COPY_DATA) {
      events.push({ kind: 'rows', messages: message });
    } else {
      this.control(message[0], message);
      if (message[0] === COPY_DONE) {
        this.finish(events, { kind: 'done', rest: chunk.subarray(needed) });
        return -1;
      }
    }
    return needed;
  }

  /** A message other than CopyData: checked or skipped. */
  private control(type: number, message: Buffer): void {
    if (type === COPY_OUT_RESPONSE && !this.started) {
      // Overall format 0 is text: what the renderer reads.
      if (message[HEADER_BYTES] !== 0) throw new CopyProtocolError('the server answered the COPY in binary format');
      this.started = true;
      return;
    }
    if (INTERLEAVED.has(type) || (this.started ? type === COPY_DONE : BEFORE_COPY.has(type))) return;
    throw new CopyProtocolError(`unexpected message '${String.fromCharCode(type)}' during COPY`);
  }

  private hold(bytes: Buffer): void {
    const headerBefore = Math.min(this.partialBytes, HEADER_BYTES);
    if (headerBefore < HEADER_BYTES) {
      bytes.copy(this.header, headerBefore, 0, Math.min(bytes.length, HEADER_BYTES - headerBefore));
      if (headerBefore + bytes.length >= HEADER_BYTES && this.header[0] === COPY_DATA) {
        const total = 1 + readLength(this.header, 1);
        const remaining = this.remainingBytes();
        // The row alone would not fit: fail now rather than gather it.
        if (total > remaining) throw new ValueTooLargeError(this.table, total, remaining);
      }
    }
    this.partialBytes += bytes.length;
    // Copied: the chunk's memory goes back to the socket.
    this.partial.push(Buffer.from(bytes));
  }

  private reset(): void {
    this.partial = [];
    this.partialBytes = 0;
  }

  private finish(events: FramedEvent[], last: FramedEvent): FramedEvent[] {
    this.finished = true;
    events.push(last);
    return events;
  }
}

/** The big-endian length after a message's type byte (it counts itself, not the type byte). */
export function readLength(data: Buffer, at: number): number {
  return ((data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3]) >>> 0;
}
