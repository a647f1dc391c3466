import { createCipheriv, createHash, createHmac, randomBytes, type CipherGCM, type Hash, type Hmac } from 'node:crypto';
import { GCM_NONCE_BYTES } from '../crypto/aes-gcm.js';
import { BufferedWriter } from './buffered-writer.js';
import type { ObjectUpload } from '../../storage/object-store.port.js';
import { StorageError } from '../../storage/storage.error.js';
import { Base64StreamEncoder } from './base64-stream.js';

/** Plaintext gathered before one HMAC/encrypt/encode/upload step, so tiny writes stay cheap. */
export const DEFAULT_COALESCE_BYTES = 64 * 1024;

export interface ResultSealerOptions {
  /** HKDF key `fetcher-external-hmac-v1`. */
  readonly hmacKey: Buffer;
  /** HKDF key `fetcher-storage-encryption-v1`. */
  readonly encryptionKey: Buffer;
  /** Plaintext bytes allowed; one more byte fails the write with FET-1101. */
  readonly maxPlaintextBytes: number;
  readonly upload: ObjectUpload;
  readonly coalesceBytes?: number;
}

export interface SealedResult {
  /** Plaintext bytes (before encryption and base64). */
  readonly sizeBytes: number;
  /** HMAC-SHA256 of the plaintext, lowercase hex. */
  readonly hmac: string;
  /** SHA-256 of the plaintext, lowercase hex. */
  readonly sha256: string;
}

type SealerState = 'open' | 'finished' | 'failed' | 'aborted';

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Streams one result into storage as base64(nonce ‖ AES-256-GCM(plaintext) ‖ tag), signing the
 * exact plaintext bytes on the way. Memory is one coalescing buffer plus what the upload holds,
 * whatever the result size.
 *
 * Writes must be awaited one at a time. Any failure (size limit, upload error) aborts the upload
 * before the write rejects, so a failed result never becomes visible even if the caller forgets
 * to call `abort`; calling it anyway is harmless.
 */
export class ResultSealer extends BufferedWriter {
  private readonly upload: ObjectUpload;
  private readonly limit: number;
  private readonly hmac: Hmac;
  private readonly sha256: Hash;
  private readonly cipher: CipherGCM;
  private readonly encoder: Base64StreamEncoder;
  private readonly staging: Buffer;
  private readonly utf8 = new TextEncoder();
  private plaintextBytes = 0;
  private state: SealerState = 'open';
  private busy = false;
  private failure: unknown;
  private uploadAborted = false;

  constructor(options: ResultSealerOptions) {
    super();
    if (!Number.isSafeInteger(options.maxPlaintextBytes) || options.maxPlaintextBytes < 0) {
      throw new RangeError(`maxPlaintextBytes must be a non-negative integer (got ${options.maxPlaintextBytes})`);
    }
    const coalesce = options.coalesceBytes ?? DEFAULT_COALESCE_BYTES;
    if (!Number.isSafeInteger(coalesce) || coalesce < 16) throw new RangeError(`coalesceBytes must be at least 16`);
    this.upload = options.upload;
    this.limit = options.maxPlaintextBytes;
    this.hmac = createHmac('sha256', options.hmacKey);
    this.sha256 = createHash('sha256');
    const nonce = randomBytes(GCM_NONCE_BYTES);
    this.cipher = createCipheriv('aes-256-gcm', options.encryptionKey, nonce);
    this.encoder = new Base64StreamEncoder(nonce);
    this.staging = Buffer.allocUnsafe(coalesce);
  }

  /** Plaintext bytes accepted so far. */
  get sizeBytes(): number {
    return this.plaintextBytes;
  }

  /**
   * Appends plaintext. Rejects with `StorageError.tooLarge` before any byte of a write that would
   * pass the limit goes anywhere. Resolves at once while the bytes fit the coalescing buffer.
   */
  write(text: string | Buffer): Promise<void> {
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    const size = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.length;
    if (this.plaintextBytes + size > this.limit) return this.fail(StorageError.tooLarge(this.limit));
    this.plaintextBytes += size;

    if (this.filled + size < this.staging.length) {
      if (typeof text === 'string') this.staging.write(text, this.filled, 'utf8');
      else text.copy(this.staging, this.filled);
      this.filled += size;
      return RESOLVED;
    }
    // A large buffer is sealed where it lies: copying it into the staging buffer first gains nothing.
    if (typeof text !== 'string' && size >= this.staging.length / 2) return this.step(() => this.sealDirect(text));
    return this.step(() => (typeof text === 'string' ? this.stageString(text) : this.gather(text)));
  }

  /** Seals the object (GCM tag), makes it visible, and returns the plaintext's size and digests. */
  async finish(): Promise<SealedResult> {
    const refusal = this.refusal();
    if (refusal) throw refusal;
    await this.step(async () => {
      const plain = this.staging.subarray(0, this.filled);
      this.filled = 0;
      this.hmac.update(plain);
      this.sha256.update(plain);
      const tail = Buffer.concat([this.cipher.update(plain), this.cipher.final(), this.cipher.getAuthTag()]);
      await this.upload.write(this.encoder.end(tail));
      await this.upload.complete();
    });
    this.state = 'finished';
    return { sizeBytes: this.plaintextBytes, hmac: this.hmac.digest('hex'), sha256: this.sha256.digest('hex') };
  }

  /** Discards the result. Never throws; a no-op once finished. */
  async abort(): Promise<void> {
    if (this.state === 'finished') return;
    if (this.state === 'open') this.state = 'aborted';
    await this.abortUpload();
  }

  private refusal(): unknown {
    switch (this.state) {
      case 'failed':
        return this.failure;
      case 'finished':
        return new Error('the result was already finished');
      case 'aborted':
        return new Error('the result was aborted');
      case 'open':
        return this.busy ? new Error('ResultSealer: await each write before the next write or finish') : undefined;
    }
  }

  private async step(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    try {
      await work();
    } catch (error) {
      await this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private async fail(error: unknown): Promise<never> {
    if (this.state === 'open') {
      this.state = 'failed';
      this.failure = error;
    }
    await this.abortUpload();
    throw error;
  }

  private async abortUpload(): Promise<void> {
    if (this.uploadAborted) return;
    this.uploadAborted = true;
    try {
      await this.upload.abort();
    } catch {
      // The port promises abort never throws; an adapter that does must not mask the real failure.
    }
  }

  private async stageString(text: string): Promise<void> {
    let rest = text;
    while (rest.length > 0) {
      // encodeInto stops at a character boundary when the buffer is full, so no code point is split.
      const { read, written } = this.utf8.encodeInto(rest, this.staging.subarray(this.filled));
      this.filled += written;
      rest = rest.slice(read);
      if (rest.length > 0 || this.filled === this.staging.length) await this.flush();
    }
  }

  protected override filling(): Buffer {
    return this.staging;
  }

  protected override async flush(): Promise<void> {
    const plain = this.staging.subarray(0, this.filled);
    this.filled = 0;
    await this.seal(plain);
  }

  private async sealDirect(bytes: Buffer): Promise<void> {
    if (this.filled > 0) await this.flush();
    await this.seal(bytes);
  }

  /**
   * Signs, encrypts and encodes `plain`; the encoded text goes to the upload once a coalescing
   * buffer's worth has gathered, so a small piece (the comma between two batches) costs no write.
   */
  private async seal(plain: Buffer): Promise<void> {
    this.hmac.update(plain);
    this.sha256.update(plain);
    this.encoder.write(this.cipher.update(plain));
    // The encoder reuses its output buffer: the upload is done with it once write resolves.
    if (this.encoder.buffered >= this.staging.length) await this.upload.write(this.encoder.take());
  }
}
