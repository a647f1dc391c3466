import type { RowBatch, TableReadRequest } from '../connectors/shared/engine-connector.js';

/** What a datasource reader hands the result writer, in order: each table's start, its batches, its end. */
export type ChannelEntry =
  | { readonly kind: 'table'; readonly request: TableReadRequest }
  | { readonly kind: 'rows'; readonly batch: RowBatch }
  | { readonly kind: 'end'; readonly rows: number };

const sizeOf = (entry: ChannelEntry) => (entry.kind === 'rows' ? entry.batch.json.length : 0);

/**
 * A bounded FIFO between one datasource reader and the result writer. The reader waits when about
 * `capacity` bytes of rows are buffered, which pauses its database cursor: memory stays bounded
 * however far ahead of the writer a datasource is.
 */
export class ChunkChannel {
  private readonly entries: ChannelEntry[] = [];
  private buffered = 0;
  private closed = false;
  private failure: { error: unknown } | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  constructor(private readonly capacity: number) {}

  async push(entry: ChannelEntry): Promise<void> {
    while (this.buffered >= this.capacity && !this.failure) {
      await new Promise<void>((resolve) => {
        this.wakeWriter = resolve;
      });
    }
    if (this.failure) throw this.failure.error;
    this.entries.push(entry);
    this.buffered += sizeOf(entry);
    this.notifyReader();
  }

  close(): void {
    this.closed = true;
    this.notifyReader();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.notifyReader();
    this.notifyWriter();
  }

  /** The next entry, or undefined once the reader closed the channel and everything was taken. */
  async next(): Promise<ChannelEntry | undefined> {
    while (this.entries.length === 0) {
      if (this.failure) throw this.failure.error;
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
    }
    if (this.failure) throw this.failure.error;
    const entry = this.entries.shift() as ChannelEntry;
    this.buffered -= sizeOf(entry);
    this.notifyWriter();
    return entry;
  }

  private notifyReader(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }

  private notifyWriter(): void {
    const wake = this.wakeWriter;
    this.wakeWriter = undefined;
    wake?.();
  }
}
