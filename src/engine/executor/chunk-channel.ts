type Chunk = string | Buffer;
const sizeOf = (chunk: Chunk) => chunk.length;

/** A chunk, and what to call once its bytes have been written (see RowBatch.release). */
export interface ChannelEntry {
  readonly chunk: Chunk;
  readonly release?: () => void;
}

/**
 * A bounded FIFO of result chunks between one datasource reader and the result writer. The reader
 * waits when about `capacity` bytes are buffered, which pauses its database cursor: memory stays
 * bounded however far ahead of the writer a datasource is.
 */
export class ChunkChannel {
  private readonly chunks: ChannelEntry[] = [];
  private buffered = 0;
  private closed = false;
  private failure: { error: unknown } | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  constructor(private readonly capacity: number) {}

  async push(chunk: Chunk, release?: () => void): Promise<void> {
    while (this.buffered >= this.capacity && !this.failure) {
      await new Promise<void>((resolve) => {
        this.wakeWriter = resolve;
      });
    }
    if (this.failure) throw this.failure.error;
    this.chunks.push({ chunk, release });
    this.buffered += sizeOf(chunk);
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

  /** The next chunk, or undefined once the reader closed the channel and everything was taken. */
  async next(): Promise<ChannelEntry | undefined> {
    while (this.chunks.length === 0) {
      if (this.failure) throw this.failure.error;
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
    }
    if (this.failure) throw this.failure.error;
    const entry = this.chunks.shift() as ChannelEntry;
    this.buffered -= sizeOf(entry.chunk);
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
