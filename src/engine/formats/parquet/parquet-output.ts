import { ByteWriter } from 'hyparquet-writer';
import type { ByteOutput } from '../table-encoder.js';

/** The size of each buffer the writer fills; a larger single write (a big page) gets a buffer of its own size. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * hyparquet-writer's byte sink, drained into a ByteOutput. The writer only appends (its pages are
 * built in writers of their own, then appended), so instead of growing one buffer by doubling and
 * copying, a full buffer is set aside as it is and a fresh one started; after a row group (flush)
 * or the footer (finish) what was set aside is written out, each write awaited. A buffer handed to
 * the output is never written again, so the output may keep it; one less than half full is copied
 * instead (and kept for what follows), so an output that keeps chunks never holds much more than
 * their bytes.
 */
export class OutputWriter extends ByteWriter {
  private readonly filled: Buffer[] = [];

  constructor(private readonly out: ByteOutput) {
    super(CHUNK_BYTES);
  }

  override ensure(size: number): void {
    if (this.index + size <= this.buffer.byteLength) return;
    this.setAside();
    if (size > this.buffer.byteLength - this.index) this.fresh(Math.max(CHUNK_BYTES, size));
  }

  flush(): Promise<void> {
    return this.drain();
  }

  override finish(): Promise<void> {
    return this.drain();
  }

  /** Moves what the buffer holds to the chunks to write: the buffer itself when mostly full, else a copy. */
  private setAside(): void {
    if (this.index === 0) return;
    if (this.index * 2 >= this.buffer.byteLength) {
      this.filled.push(Buffer.from(this.buffer, 0, this.index));
      this.fresh(CHUNK_BYTES);
    } else {
      this.filled.push(Buffer.from(new Uint8Array(this.buffer, 0, this.index)));
      this.index = 0;
    }
  }

  private fresh(size: number): void {
    this.buffer = new ArrayBuffer(size);
    this.view = new DataView(this.buffer);
    this.index = 0;
  }

  private async drain(): Promise<void> {
    this.setAside();
    while (this.filled.length > 0) await this.out.write(this.filled.shift() as Buffer);
  }
}
