import type { ResultUpload } from './result-upload.js';

/**
 * Gathers bytes into a buffer of fixed size and hands the buffer on each time it is full, so a run
 * of small writes costs one write downstream per buffer. A subclass says which buffer is filling
 * (it may be another after each flush) and what handing it on means.
 */
export abstract class BufferedWriter {
  /** Bytes of the filling buffer in use. */
  protected filled = 0;

  /** The buffer being filled; its length is what one flush hands on. */
  protected abstract filling(): Buffer;

  /** Hands on the `filled` bytes of the filling buffer, and sets `filled` back to 0. */
  protected abstract flush(): Promise<void>;

  /** Copies all of `bytes` in, flushing each time the buffer is full. */
  protected async gather(bytes: Buffer): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      const buffer = this.filling();
      const copied = bytes.copy(buffer, this.filled, offset);
      this.filled += copied;
      offset += copied;
      if (this.filled === buffer.length) await this.flush();
    }
  }
}

/** An upload whose writes gather into parts of the buffer's size, refused once it ended or failed. */
export abstract class BufferedUpload extends BufferedWriter implements ResultUpload {
  async write(chunk: Buffer): Promise<void> {
    this.assertOpen();
    await this.gather(chunk);
  }

  abstract complete(): Promise<void>;
  abstract abort(): Promise<void>;

  /** Throws the upload's failure, or that it already ended. */
  protected abstract assertOpen(): void;
}
