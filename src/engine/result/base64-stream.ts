const EMPTY = Buffer.alloc(0);

/**
 * Input bytes per base64 string (a multiple of 3). Each string is 64 KiB: an ordinary young object.
 * One string for a whole large chunk would be a large-object allocation, which only a full GC frees.
 */
const SEGMENT_BYTES = 48 * 1024;

/**
 * Encodes a byte stream as one continuous standard base64 text, chunk by chunk, into one output
 * buffer it reuses.
 *
 * Base64 maps 3 bytes to 4 characters, so encoding a chunk whose length is not a multiple of 3
 * would put padding in the middle of the stream. The 0–2 bytes left over are carried into the
 * next chunk instead, and padding is only emitted by `end`.
 */
export class Base64StreamEncoder {
  private carry: Buffer;
  private out: Buffer = EMPTY;
  private filled = 0;

  /** `prefix` is encoded in front of the first chunk (the GCM nonce) without a write of its own. */
  constructor(prefix: Buffer = EMPTY) {
    this.carry = Buffer.from(prefix);
  }

  /** Encoded bytes waiting to be taken. */
  get buffered(): number {
    return this.filled;
  }

  /** Encodes the carried bytes plus as much of `chunk` as forms whole 3-byte groups, and keeps them. */
  write(chunk: Buffer): void {
    const total = this.carry.length + chunk.length;
    const whole = total - (total % 3);
    if (whole === 0) {
      this.carry = Buffer.concat([this.carry, chunk]);
      return;
    }
    const out = this.room((whole / 3) * 4);
    let start = 0;
    if (this.carry.length > 0) {
      // The carried bytes complete their group with the first bytes of the chunk.
      start = Math.min(chunk.length, (3 - (this.carry.length % 3)) % 3);
      const first = Buffer.concat([this.carry, chunk.subarray(0, start)]);
      const groups = first.length - (first.length % 3);
      this.filled += out.write(first.toString('base64', 0, groups), this.filled, 'latin1');
      if (groups < first.length) {
        // The chunk was too short to complete the group: all of it is carried.
        this.carry = first.subarray(groups);
        return;
      }
    }
    const end = start + Math.floor((chunk.length - start) / 3) * 3;
    for (let at = start; at < end; at += SEGMENT_BYTES) {
      this.filled += out.write(chunk.toString('base64', at, Math.min(end, at + SEGMENT_BYTES)), this.filled, 'latin1');
    }
    // Copied, not viewed: `chunk` may live in a buffer the caller reuses.
    this.carry = Buffer.from(chunk.subarray(end));
  }

  /**
   * The text encoded so far, as a view of the encoder's own buffer: valid until the next call, so
   * write it out before that.
   */
  take(): Buffer {
    const text = this.out.subarray(0, this.filled);
    this.filled = 0;
    return text;
  }

  /** write() then take(). */
  push(chunk: Buffer): Buffer {
    this.write(chunk);
    return this.take();
  }

  /** Everything not taken yet plus all of `chunk`, padded: the end of the stream. */
  end(chunk: Buffer = EMPTY): Buffer {
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = EMPTY;
    return Buffer.concat([this.take(), Buffer.from(data.toString('base64'), 'latin1')]);
  }

  /** Room for `bytes` more after what is buffered, keeping it. */
  private room(bytes: number): Buffer {
    const needed = this.filled + bytes;
    if (this.out.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.out.length * 2));
      this.out.copy(grown, 0, 0, this.filled);
      this.out = grown;
    }
    return this.out;
  }
}
