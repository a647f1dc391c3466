import { createHash, type Hash } from 'node:crypto';
import { ResultTooLargeError } from '../errors/engine-errors.js';
import { BufferedWriter } from './buffered-writer.js';
import { PlainEncoding, SealedEncoding, type ResultEncoding, type SealingKeys } from './result-encoding.js';
import type { ResultUpload } from './result-upload.js';

/** Plaintext gathered before one HMAC/encrypt/encode/upload step, so tiny writes stay cheap. */
export const DEFAULT_COALESCE_BYTES = 64 * 1024;

export interface ResultWriterOptions {
  /** Plaintext bytes allowed; one more byte fails the write with FET-1101. */
  readonly maxPlaintextBytes: number;
  readonly upload: ResultUpload;
  readonly coalesceBytes?: number;
}

export type ResultSealerOptions = ResultWriterOptions & SealingKeys;

export interface WrittenResult {
  /** Plaintext bytes (before encryption and base64). */
  readonly sizeBytes: number;
  /** SHA-256 of the plaintext, lowercase hex. */
  readonly sha256: string;
  /** Bytes handed to the upload: the plaintext's size, or the sealed object's. */
  readonly storedBytes: number;
  /** HMAC-SHA256 of the plaintext, lowercase hex; only when sealed. */
  readonly hmac?: string;
}

export interface SealedResult extends WrittenResult {
  readonly hmac: string;
}

type SealerState = 'open' | 'finished' | 'failed' | 'aborted';

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Streams one result into an upload, hashing the exact plaintext bytes on the way (SHA-256) and
 * storing them as its encoding says: as they are, or sealed (ResultSealer). Memory is one
 * coalescing buffer plus what the encoding and the upload hold, whatever the result size.
 *
 * Writes must be awaited one at a time. Any failure (size limit, upload error) aborts the upload
 * before the write rejects, so a failed result never becomes visible even if the caller forgets
 * to call `abort`; calling it anyway is harmless.
 */
export class ResultWriter extends BufferedWriter {
  private readonly upload: ResultUpload;
  private readonly limit: number;
  private readonly sha256: Hash;
  private readonly encoding: ResultEncoding;
  private readonly staging: Buffer;
  private readonly utf8 = new TextEncoder();
  private plaintextBytes = 0;
  private storedBytes = 0;
  private state: SealerState = 'open';
  private busy = false;
  private failure: unknown;
  private uploadAborted = false;

  constructor(options: ResultWriterOptions, encoding?: (flushBytes: number) => ResultEncoding) {
    super();
    if (!Number.isSafeInteger(options.maxPlaintextBytes) || options.maxPlaintextBytes < 0) {
      throw new RangeError(`maxPlaintextBytes must be a non-negative integer (got ${options.maxPlaintextBytes})`);
    }
    const coalesce = options.coalesceBytes ?? DEFAULT_COALESCE_BYTES;
    if (!Number.isSafeInteger(coalesce) || coalesce < 16) throw new RangeError(`coalesceBytes must be at least 16`);
    this.upload = options.upload;
    this.limit = options.maxPlaintextBytes;
    this.sha256 = createHash('sha256');
    this.encoding = encoding?.(coalesce) ?? new PlainEncoding();
    this.staging = Buffer.allocUnsafe(coalesce);
  }

  /** Plaintext bytes accepted so far. */
  get sizeBytes(): number {
    return this.plaintextBytes;
  }

  /**
   * Appends plaintext. Rejects with `ResultTooLargeError` before any byte of a write that would
   * pass the limit goes anywhere. Resolves at once while the bytes fit the coalescing buffer.
   */
  write(text: string | Buffer): Promise<void> {
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    const size = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.length;
    if (this.plaintextBytes + size > this.limit) return this.fail(ResultTooLargeError.limit(this.limit));
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

  /** Ends the object (a sealed one with its GCM tag), makes it visible, and returns the plaintext's size and digests. */
  async finish(): Promise<WrittenResult> {
    const refusal = this.refusal();
    if (refusal) throw refusal;
    await this.step(async () => {
      const plain = this.staging.subarray(0, this.filled);
      this.filled = 0;
      this.sha256.update(plain);
      const last = this.encoding.end(plain);
      if (last.length > 0) await this.store(last);
      await this.upload.complete();
    });
    this.state = 'finished';
    const hmac = this.encoding.hmac;
    const digests = { sha256: this.sha256.digest('hex'), ...(hmac === undefined ? {} : { hmac }) };
    return { sizeBytes: this.plaintextBytes, storedBytes: this.storedBytes, ...digests };
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
        return this.busy ? new Error('ResultWriter: await each write before the next write or finish') : undefined;
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

  /** Hashes `plain` and hands what its encoding makes of it to the upload. */
  private async seal(plain: Buffer): Promise<void> {
    this.sha256.update(plain);
    const encoded = this.encoding.push(plain);
    if (encoded !== undefined && encoded.length > 0) await this.store(encoded);
  }

  private async store(bytes: Buffer): Promise<void> {
    this.storedBytes += bytes.length;
    await this.upload.write(bytes);
  }
}

/**
 * A result stored as base64(nonce ‖ AES-256-GCM(plaintext) ‖ tag), its exact plaintext bytes
 * signed on the way: what the service stores and `fetcher extract --seal` writes.
 */
export class ResultSealer extends ResultWriter {
  constructor(options: ResultSealerOptions) {
    super(options, (flushBytes) => new SealedEncoding(options, flushBytes));
  }

  override async finish(): Promise<SealedResult> {
    return (await super.finish()) as SealedResult;
  }
}
