import { createDecipheriv, createHash, createHmac, type DecipherGCM, type Hash, type Hmac } from 'node:crypto';
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream';
import { GCM_NONCE_BYTES, GCM_TAG_BYTES } from '../crypto/aes-gcm.js';
import type { ResultKeys } from '../crypto/key-derivation.js';
import { ResultCodecError } from '../errors/engine-errors.js';
import { Base64StreamDecoder, MalformedBase64Error } from './base64-stream-decoder.js';
import { hmacMatches } from './result-opener.js';

const EMPTY = Buffer.alloc(0);

/** What the job recorded about its plaintext when it was sealed. */
export interface ExpectedPlaintext {
  readonly sizeBytes: number;
  /** HMAC-SHA256 (`fetcher-external-hmac-v1`), hex: the job's resultHmac. */
  readonly hmac: string;
  /** SHA-256, hex: the job's result.sha256. */
  readonly sha256: string;
}

/** Which check a stored result failed; logged, so an operator knows what to look at. */
export type VerificationCheck = 'base64' | 'too-short' | 'authentication' | 'size' | 'hmac' | 'sha256';

/** A stored result that does not open to the plaintext its job recorded. Never names a key. */
export class ResultVerificationError extends ResultCodecError {
  constructor(
    readonly check: VerificationCheck,
    message: string,
  ) {
    super(message);
  }
}

/** The size of the stored object that seals `plaintextBytes` bytes: base64 of nonce ‖ ciphertext ‖ tag. */
export function sealedObjectBytes(plaintextBytes: number): number {
  return Math.ceil((plaintextBytes + GCM_NONCE_BYTES + GCM_TAG_BYTES) / 3) * 4;
}

/**
 * Opens a stored result as a stream: base64 text in, verified plaintext out. The streaming twin of
 * openResultWithKeys, for objects too large to hold: memory is a few chunks whatever the size.
 *
 * Bytes are decoded, deciphered and hashed as they arrive, but the newest plaintext chunk is always
 * held back: it is released only once the GCM tag authenticated the whole object AND the plaintext
 * has the size, HMAC and SHA-256 the job recorded. On any mismatch the stream fails with a
 * ResultVerificationError instead, and the held bytes are dropped, so a consumer that counts bytes
 * against the recorded size can never mistake a forged or damaged result for a complete one.
 *
 * The GCM tag is the last 16 decoded bytes, so those are held back too until the input ends.
 */
export class ResultStreamOpener extends Transform {
  private readonly decoder = new Base64StreamDecoder();
  private readonly hmac: Hmac;
  private readonly sha256: Hash;
  private decipher: DecipherGCM | undefined;
  /** Decoded bytes while the nonce is incomplete. */
  private head: Buffer = EMPTY;
  /** The last decoded bytes (at most 16): the tag, if the input ends here. */
  private tail: Buffer = EMPTY;
  /** The newest plaintext, not released yet. */
  private held: Buffer | undefined;
  private decodedBytes = 0;
  private plaintextBytes = 0;
  private released = 0;
  /** Set by _flush: what the end of the input decodes to joins the held bytes instead of releasing them. */
  private ending = false;

  constructor(
    private readonly keys: ResultKeys,
    private readonly expected: ExpectedPlaintext,
    options: Pick<TransformOptions, 'highWaterMark'> = {},
  ) {
    super(options);
    this.hmac = createHmac('sha256', keys.hmacKey);
    this.sha256 = createHash('sha256');
  }

  /** Plaintext bytes handed on so far: all of them once the stream ended without error. */
  get releasedBytes(): number {
    return this.released;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.accept(this.decode(() => this.decoder.write(chunk)));
      callback();
    } catch (error) {
      this.held = undefined;
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.ending = true;
      this.accept(this.decode(() => this.decoder.end()));
      this.verify();
      if (this.held) this.release(this.held);
      this.held = undefined;
      callback();
    } catch (error) {
      this.held = undefined;
      callback(error as Error);
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.held = undefined;
    callback(error);
  }

  private decode(step: () => Buffer): Buffer {
    try {
      return step();
    } catch (error) {
      if (error instanceof MalformedBase64Error) throw new ResultVerificationError('base64', error.message);
      throw error;
    }
  }

  private accept(decoded: Buffer): void {
    if (decoded.length === 0) return;
    this.decodedBytes += decoded.length;
    let bytes = decoded;
    if (this.decipher === undefined) {
      const joined = this.head.length === 0 ? bytes : Buffer.concat([this.head, bytes]);
      if (joined.length < GCM_NONCE_BYTES) {
        this.head = joined;
        return;
      }
      this.decipher = createDecipheriv('aes-256-gcm', this.keys.encryptionKey, joined.subarray(0, GCM_NONCE_BYTES));
      this.head = EMPTY;
      bytes = joined.subarray(GCM_NONCE_BYTES);
    }
    // Everything but the last 16 bytes seen so far is ciphertext.
    const joined = this.tail.length === 0 ? bytes : Buffer.concat([this.tail, bytes]);
    const cut = joined.length - GCM_TAG_BYTES;
    if (cut <= 0) {
      this.tail = joined;
      return;
    }
    // Copied: a view would keep the whole decoded chunk alive for its last 16 bytes.
    this.tail = Buffer.from(joined.subarray(cut));
    this.decrypt(joined.subarray(0, cut));
  }

  private decrypt(ciphertext: Buffer): void {
    const plain = (this.decipher as DecipherGCM).update(ciphertext);
    this.plaintextBytes += plain.length;
    // Known to be wrong already; failing now spares reading the rest of a bloated object.
    if (this.plaintextBytes > this.expected.sizeBytes) {
      throw new ResultVerificationError(
        'size',
        `result object holds more than the ${this.expected.sizeBytes} plaintext bytes its job recorded`,
      );
    }
    this.hmac.update(plain);
    this.sha256.update(plain);
    if (plain.length === 0) return;
    if (this.held && this.ending) {
      this.held = Buffer.concat([this.held, plain]);
      return;
    }
    if (this.held) this.release(this.held);
    this.held = plain;
  }

  private release(bytes: Buffer): void {
    this.released += bytes.length;
    this.push(bytes);
  }

  private verify(): void {
    const decipher = this.decipher;
    if (decipher === undefined || this.tail.length < GCM_TAG_BYTES) {
      throw new ResultVerificationError('too-short', `result object is too short to be sealed (${this.decodedBytes} bytes decoded)`);
    }
    decipher.setAuthTag(this.tail);
    try {
      // GCM returns no bytes here; only the tag check.
      decipher.final();
    } catch {
      throw new ResultVerificationError(
        'authentication',
        'result object failed authentication: it was modified, or it was sealed with another key',
      );
    }
    if (this.plaintextBytes !== this.expected.sizeBytes) {
      throw new ResultVerificationError(
        'size',
        `result plaintext is ${this.plaintextBytes} bytes, its job recorded ${this.expected.sizeBytes}`,
      );
    }
    // hmacMatches is a constant-time comparison of two 64-digit hex values: right for both digests.
    if (!hmacMatches(this.hmac.digest('hex'), this.expected.hmac)) {
      throw new ResultVerificationError('hmac', "HMAC-SHA256 of the plaintext does not match the job's resultHmac");
    }
    if (!hmacMatches(this.sha256.digest('hex'), this.expected.sha256)) {
      throw new ResultVerificationError('sha256', "SHA-256 of the plaintext does not match the job's result.sha256");
    }
  }
}
