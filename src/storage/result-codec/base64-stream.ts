const EMPTY = Buffer.alloc(0);

/**
 * Encodes a byte stream as one continuous standard base64 text, chunk by chunk.
 *
 * Base64 maps 3 bytes to 4 characters, so encoding a chunk whose length is not a multiple of 3
 * would put padding in the middle of the stream. The 0–2 bytes left over are carried into the
 * next chunk instead, and padding is only emitted by `end`.
 */
export class Base64StreamEncoder {
  private carry: Buffer;

  /** `prefix` is encoded in front of the first chunk (the GCM nonce) without a write of its own. */
  constructor(prefix: Buffer = EMPTY) {
    this.carry = Buffer.from(prefix);
  }

  /** Encodes the carried bytes plus as much of `chunk` as forms whole 3-byte groups. */
  push(chunk: Buffer): Buffer {
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const whole = data.length - (data.length % 3);
    // Copied, not viewed: `chunk` may live in a buffer the caller reuses.
    this.carry = Buffer.from(data.subarray(whole));
    return whole === 0 ? EMPTY : Buffer.from(data.subarray(0, whole).toString('base64'), 'latin1');
  }

  /** Encodes the carried bytes plus all of `chunk`, padded: the end of the stream. */
  end(chunk: Buffer = EMPTY): Buffer {
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = EMPTY;
    return Buffer.from(data.toString('base64'), 'latin1');
  }
}
