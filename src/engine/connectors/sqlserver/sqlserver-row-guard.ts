import type { Readable } from 'node:stream';
import { ValueTooLargeError, type ReadBudget } from '../shared/read-budget.js';
import { SocketTap } from '../shared/socket-tap.js';

/**
 * Bytes a row may take on the wire beyond twice what the result may still hold before it is
 * refused: room for the rows tedious reads ahead while the stream is paused, packet headers and
 * TLS records, so a row that fits is never refused.
 */
export const ROW_GUARD_SLACK_BYTES = 1024 * 1024;

/**
 * Refuses a row while it is still arriving, once it cannot fit what the result may still hold.
 *
 * tedious reads a (max) value as PLP chunks and keeps them all until the value is complete; only
 * then does it emit the row (value-parser.js `readPLPStream`, with no hook for the announced
 * length or the chunks). The bytes arriving on the connection's socket since the last row are the
 * only earlier sign of a row's size: TDS carries text as UTF-16 (2 bytes a character, each
 * rendered to at least one byte) and binary as is (rendered in base64), so a row renders to at
 * least half its TDS bytes. Past twice the remaining bytes (plus slack) the row cannot fit.
 *
 * `onOversize` must cut the connection: tedious would otherwise go on collecting the value, and a
 * cancel is not read before the value ends.
 */
export class PendingRowGuard extends SocketTap {
  private pending = 0;

  constructor(
    socket: Readable,
    private readonly budget: ReadBudget,
    private readonly table: string,
    private readonly onOversize: (error: ValueTooLargeError) => void,
  ) {
    // The bytes are counted before tedious keeps them.
    super(socket);
  }

  /** A row has been handed over: the next one starts. */
  rowArrived(): void {
    this.pending = 0;
  }

  protected onChunk(chunk: Buffer): void {
    this.pending += chunk.length;
    const remaining = this.budget.remainingBytes();
    if (this.pending <= 2 * remaining + ROW_GUARD_SLACK_BYTES) return;
    this.detach();
    this.onOversize(new ValueTooLargeError(this.table, Math.floor(this.pending / 2), remaining));
  }
}
