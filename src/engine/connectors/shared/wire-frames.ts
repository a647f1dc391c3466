import type { Readable } from 'node:stream';
import type { CatalogTooLargeError } from '../../errors/engine-errors.js';
import type { CatalogBudget } from './catalog-budget.js';
import { type ReadBudget, ValueTooLargeError } from './read-budget.js';
import { SocketTap } from './socket-tap.js';

/** How a wire protocol frames its messages: a fixed-size header that gives the body's length. */
export interface FrameFormat {
  readonly headerBytes: number;
  /** Body bytes that follow the header starting at `offset` of `bytes`. */
  bodyBytes(bytes: Buffer, offset: number): number;
}

/** Called with each header (at `offset` of `bytes`, valid only during the call) and its body length. */
export type FrameListener = (bytes: Buffer, offset: number, bodyBytes: number) => void;

/**
 * Follows the framing of a driver's socket, ahead of the driver: drivers buffer a whole message
 * before they parse it, so only the header, seen as it arrives, tells how large a message will be
 * before its bytes are in memory. Bodies are skipped, never copied, headers split across chunks are
 * stitched; the cost is one listener call per message.
 *
 * It must be attached when the stream is at a message boundary (between statements) and stay
 * attached from then on: it cannot find its way back into a stream it lost.
 */
export class FrameWatcher extends SocketTap {
  private skip = 0;
  private readonly header: Buffer;
  private headerFill = 0;

  constructor(
    stream: Readable,
    private readonly format: FrameFormat,
    private readonly listener: FrameListener,
  ) {
    super(stream);
    this.header = Buffer.alloc(format.headerBytes);
  }

  protected onChunk(chunk: Buffer): void {
    const size = this.format.headerBytes;
    const end = chunk.length;
    let i = 0;
    while (i < end && this.attached) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, end - i);
        this.skip -= n;
        i += n;
      } else if (this.headerFill === 0 && end - i >= size) {
        const body = Math.max(0, this.format.bodyBytes(chunk, i));
        this.skip = body;
        this.listener(chunk, i, body);
        i += size;
      } else {
        const n = Math.min(size - this.headerFill, end - i);
        chunk.copy(this.header, this.headerFill, i, i + n);
        this.headerFill += n;
        i += n;
        if (this.headerFill === size) {
          this.headerFill = 0;
          const body = Math.max(0, this.format.bodyBytes(this.header, 0));
          this.skip = body;
          this.listener(this.header, 0, body);
        }
      }
    }
  }
}

interface ArmedCatalog {
  readonly budget: CatalogBudget;
  readonly onOver: (error: CatalogTooLargeError) => void;
}

/**
 * Refuses, as its header arrives, a row message larger than what the result may still hold, while
 * a read is armed. `rowBytes` maps a header to the size of the row it carries, or undefined for
 * other messages. On a refusal the watcher stops and `onOversize` gets the error: the caller must
 * cut the connection (the driver holds part of a message it will never complete).
 *
 * While a discovery is armed (armCatalog), every message, header included, is charged to its
 * catalog budget as its header arrives; past the budget the watcher stops the same way.
 */
export class RowSizeGuard {
  private armed: { readonly table: string; readonly budget: ReadBudget } | undefined;
  private catalog: ArmedCatalog | undefined;
  private readonly watcher: FrameWatcher;

  constructor(
    stream: Readable,
    format: FrameFormat,
    rowBytes: (bytes: Buffer, offset: number, bodyBytes: number) => number | undefined,
    onOversize: (error: ValueTooLargeError) => void,
  ) {
    this.watcher = new FrameWatcher(stream, format, (bytes, offset, body) => {
      if (this.catalog !== undefined && !this.chargeCatalog(this.catalog, format.headerBytes + body)) return;
      const size = rowBytes(bytes, offset, body);
      if (size === undefined || this.armed === undefined) return;
      const remaining = this.armed.budget.remainingBytes();
      if (size <= remaining) return;
      const error = new ValueTooLargeError(this.armed.table, size, remaining);
      this.armed = undefined;
      this.watcher.detach();
      onOversize(error);
    });
  }

  /** Checks each row of this table's read against `budget.remainingBytes()` until disarmed. */
  arm(table: string, budget: ReadBudget): void {
    this.armed = { table, budget };
  }

  disarm(): void {
    this.armed = undefined;
  }

  /** Charges every message to `budget` until disarmCatalog; `onOver` must cut the connection. */
  armCatalog(budget: CatalogBudget, onOver: (error: CatalogTooLargeError) => void): void {
    this.catalog = { budget, onOver };
  }

  disarmCatalog(): void {
    this.catalog = undefined;
  }

  /** Stops following the stream for good (something else is about to read it raw). */
  detach(): void {
    this.armed = undefined;
    this.catalog = undefined;
    this.watcher.detach();
  }

  private chargeCatalog(catalog: ArmedCatalog, bytes: number): boolean {
    if (catalog.budget.tryCharge(bytes)) return true;
    // The rest of the stream is the server's answer we refuse: the connection is cut.
    this.detach();
    catalog.onOver(catalog.budget.exceeded as CatalogTooLargeError);
    return false;
  }
}
