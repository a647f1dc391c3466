import type { ResultUpload } from '../result-upload.js';

/** A ResultUpload that keeps everything in memory and records how it was used. For tests. */
export class MemoryUpload implements ResultUpload {
  readonly chunks: Buffer[] = [];
  completed = false;
  aborted = false;
  /** When set, the write with this index (0-based) rejects with `failWith`. */
  failOnWrite?: number;
  failWith: Error = new Error('simulated upload failure');
  private writes = 0;

  async write(chunk: Buffer): Promise<void> {
    if (this.completed || this.aborted) throw new Error('write after the upload ended');
    const index = this.writes++;
    if (index === this.failOnWrite) throw this.failWith;
    this.chunks.push(Buffer.from(chunk));
  }

  async complete(): Promise<void> {
    if (this.aborted) throw new Error('complete after abort');
    this.completed = true;
  }

  async abort(): Promise<void> {
    this.aborted = true;
  }

  get body(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
