import type { RowBatch } from './engine-connector.js';
import { releaseOnce } from './release-once.js';

const NO_CHUNKS: RowBatch[] = [];

/**
 * The output side of a renderer that writes rows' JSON as bytes (PostgreSQL COPY text, MySQL row
 * packets): rows go into a chunk buffer of `chunkBytes` (a large row grows it), and a chunk handed
 * on comes back for reuse once its consumer releases it (RowBatch.release), rather than as new
 * garbage. Subclasses write `out` from `pos` themselves, in their own loops: nothing here runs per
 * value or per row.
 */
export abstract class JsonChunkWriter {
  protected out: Buffer;
  protected pos = 0;
  /** Rows in the chunk being written. */
  protected chunkRows = 0;
  private chunks: RowBatch[] = [];
  /** Chunk buffers handed back by the consumer, at most as many as were out at once. */
  private readonly spare: Buffer[] = [];

  /** `copyMostlyEmpty`: a chunk less than half full is handed on as a copy and its buffer kept. */
  protected constructor(
    private readonly chunkBytes: number,
    private readonly copyMostlyEmpty: boolean,
  ) {
    this.out = Buffer.allocUnsafe(chunkBytes);
  }

  /** Replaces `out` with a buffer of at least `need` bytes, keeping what is written. */
  protected grow(need: number): void {
    const grown = Buffer.allocUnsafe(Math.max(2 * this.out.length, need));
    this.out.copy(grown, 0, 0, this.pos);
    this.out = grown;
  }

  /** Hands on the rows written so far as one chunk; the next one starts empty. */
  protected flushChunk(): void {
    if (this.chunkRows === 0) return;
    const pos = this.pos;
    let json: Buffer;
    let release: (() => void) | undefined;
    if (!this.copyMostlyEmpty || 2 * pos >= this.out.length) {
      const full = this.out;
      json = full.subarray(0, pos);
      // A grown buffer is not kept: one huge row must not hold its memory for the rest of the read.
      if (full.length === this.chunkBytes) release = releaseOnce(() => this.spare.push(full));
      this.out = this.spare.pop() ?? Buffer.allocUnsafe(this.chunkBytes);
    } else {
      // Mostly empty (the end of a batch): a copy of the bytes, so the buffer is used again.
      json = Buffer.allocUnsafe(pos);
      this.out.copy(json, 0, 0, pos);
      if (this.out.length > this.chunkBytes) this.out = Buffer.allocUnsafe(this.chunkBytes);
    }
    this.chunks.push({ json, rowCount: this.chunkRows, release });
    this.pos = 0;
    this.chunkRows = 0;
  }

  /** The chunks handed on since the last call. */
  protected takeChunks(): RowBatch[] {
    if (this.chunks.length === 0) return NO_CHUNKS;
    const chunks = this.chunks;
    this.chunks = [];
    return chunks;
  }

  /** Forgets every chunk and row not taken yet. */
  protected dropChunks(): void {
    this.chunks = [];
    this.pos = 0;
    this.chunkRows = 0;
  }
}
