import { pipeline } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { deriveKey, deriveResultKeys, KeyPurpose, type ResultKeys } from '../engine/crypto/key-derivation.js';
import { FetCode } from '../engine/errors/fet-code.js';
import {
  attemptObjectKey,
  attemptPartsFolder,
  OBJECT_STORE,
  resultObjectKey,
  type ObjectReadStream,
  type ObjectStore,
} from './object-store.port.js';
import { openResult, type OpenedResult } from '../engine/result/result-opener.js';
import { ResultSealer } from '../engine/result/result-sealer.js';
import {
  ResultStreamOpener,
  ResultVerificationError,
  sealedObjectBytes,
  type ExpectedPlaintext,
} from '../engine/result/result-stream-opener.js';
import type { SealingKeys } from '../engine/result/result-encoding.js';
import type { PartSink } from '../engine/formats/result-parts.js';
import type { ResultUpload } from '../engine/result/result-upload.js';
import { StagedObjects } from './staged-objects.js';
import { StorageError } from './storage.error.js';

export interface StoredResult {
  /** `external-data/<jobId>.json`: the logical key, without S3_KEY_PREFIX or bucket. */
  readonly path: string;
  /** Plaintext bytes. */
  readonly sizeBytes: number;
  /** HMAC-SHA256 of the plaintext (`fetcher-external-hmac-v1`), lowercase hex: the job's resultHmac. */
  readonly hmac: string;
  /** SHA-256 of the plaintext, lowercase hex. */
  readonly sha256: string;
  /** APP_ENC_KEY_VERSION of the master key both keys were derived from: what opens it after a rotation. */
  readonly keyVersion: string;
}

/**
 * Where one job's result JSON goes. Await each `write` before the next. A write that would pass
 * the size limit rejects with FET-1101 (StorageError) before its bytes go anywhere; any failure
 * discards the upload. Call `abort` on every failure path anyway (idempotent, never throws).
 */
export interface ResultSink {
  write(text: string | Buffer): Promise<void>;
  /**
   * Completes the object. Unstaged: it is now visible under `path`. Staged: it is complete under the
   * attempt's own key, and becomes the job's result only through `publish`.
   */
  finish(): Promise<StoredResult>;
  /** Staged sinks: moves the finished attempt object to `path`. Unstaged: nothing to do. */
  publish(): Promise<void>;
  /** Discards the upload, and a finished but unpublished attempt object. Never throws. */
  abort(): Promise<void>;
}

/** One attempt's result on its way into the store: what the engine seals with and writes to, and what makes it the job's. */
export interface StagedResult {
  /** `external-data/<jobId>.json`: the logical key, without S3_KEY_PREFIX or bucket. */
  readonly path: string;
  /** APP_ENC_KEY_VERSION of the master key `keys` were derived from. */
  readonly keyVersion: string;
  readonly keys: SealingKeys;
  /** A one-object result's upload (json, ndjson); also the manifest's of a per-table result. */
  readonly upload: ResultUpload;
  /**
   * A per-table result's sink (csv, parquet): each part at `external-data/<jobId>/<datasource>/<fileName>`
   * (staged under the attempt's folder), and the manifest, which is `upload`, at `path`.
   */
  readonly parts: PartSink;
  /** Staged: moves every completed part, then the attempt object, to their keys. Unstaged: nothing to do. */
  publish(): Promise<void>;
  /** Discards every upload, and every completed but unpublished object (parts included). Never throws. */
  abort(): Promise<void>;
}

/** The claim a staged result belongs to (see attemptObjectKey). */
export interface ResultAttempt {
  readonly attempt: number;
  readonly workerId: string;
}

/** A result being opened as a stream: its verified plaintext, and the stored object's size. */
export interface OpenedResultStream {
  /** A ResultStreamOpener fed by the store; fails (and never ends cleanly) on any mismatch. */
  readonly plaintext: ResultStreamOpener;
  readonly storedBytes: number;
}

const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

@Injectable()
export class ResultStorageService {
  private readonly hmacKey: Buffer;
  private readonly encryptionKey: Buffer;
  /** Derived once per configured master-key version: what opens results sealed before a rotation. */
  private readonly keysByVersion: ReadonlyMap<string, ResultKeys>;

  constructor(
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.hmacKey = deriveKey(config.encryption.masterKey, KeyPurpose.ResultHmac);
    this.encryptionKey = deriveKey(config.encryption.masterKey, KeyPurpose.ResultEncryption);
    this.keysByVersion = new Map([...config.encryption.keyring].map(([version, master]) => [version, deriveResultKeys(master)]));
  }

  /**
   * Where one attempt of a job stores its result, for the engine to seal into: the keys of the
   * current master-key version, and an upload that begins on its first write (a job that fails
   * before writing leaves no upload). Unstaged (no attempt), the object is visible under `path`
   * once complete; staged, it is complete under the attempt's own key and becomes the job's result
   * only through `publish`.
   */
  stageResult(jobId: string, attempt?: ResultAttempt): StagedResult {
    if (!JOB_ID.test(jobId))
      throw new StorageError(FetCode.StorageFailed, `invalid job id for a result path: ${JSON.stringify(jobId.slice(0, 200))}`);
    const path = resultObjectKey(jobId);
    const staging =
      attempt === undefined ? undefined : { object: this.attemptKey(jobId, attempt), partsFolder: this.partsFolder(jobId, attempt) };
    const objects = new StagedObjects(this.store, jobId, path, staging);
    return {
      path,
      keyVersion: this.config.encryption.keyVersion,
      keys: { hmacKey: this.hmacKey, encryptionKey: this.encryptionKey },
      upload: objects.upload,
      parts: { openPart: (part) => objects.openPart(part), openManifest: () => objects.openManifest() },
      publish: () => objects.publish(),
      abort: () => objects.abort(),
    };
  }

  /**
   * A sealed result written directly (not through an extraction): `maxPlaintextBytes` is capped at
   * the configured ceiling (ENGINE_MAX_RESULT_BYTES) so no caller can exceed it.
   */
  async openSink(jobId: string, maxPlaintextBytes: number, attempt?: ResultAttempt): Promise<ResultSink> {
    const staged = this.stageResult(jobId, attempt);
    const sealer = new ResultSealer({
      ...staged.keys,
      maxPlaintextBytes: Math.min(maxPlaintextBytes, this.config.extraction.maxResultBytes),
      upload: staged.upload,
    });
    return {
      write: (text) => sealer.write(text),
      finish: async () => ({ path: staged.path, keyVersion: staged.keyVersion, ...(await sealer.finish()) }),
      publish: () => staged.publish(),
      abort: async () => {
        await sealer.abort();
        await staged.abort();
      },
    };
  }

  /**
   * Deletes what an attempt may have left (its worker died after finishing the upload). Never throws:
   * a leftover attempt object is invisible to consumers and only costs space.
   */
  async discardAttempt(jobId: string, attempt: ResultAttempt): Promise<void> {
    if (!JOB_ID.test(jobId)) return;
    await this.store.delete(this.attemptKey(jobId, attempt)).catch(() => undefined);
    await this.store.deleteFolder(this.partsFolder(jobId, attempt)).catch(() => undefined);
  }

  private attemptKey(jobId: string, attempt: ResultAttempt): string {
    return attemptObjectKey(jobId, attempt.attempt, workerTag(attempt));
  }

  private partsFolder(jobId: string, attempt: ResultAttempt): string {
    return attemptPartsFolder(jobId, attempt.attempt, workerTag(attempt));
  }

  /** The stored object exactly as a consumer downloads it (base64 text). */
  readStored(path: string): Promise<Buffer> {
    return this.store.read(path);
  }

  /** Reads, authenticates and decrypts a stored result, and recomputes its HMAC and SHA-256. */
  async open(path: string): Promise<OpenedResult> {
    return openResult(await this.readStored(path), this.config.encryption.masterKey);
  }

  /** The stored object as a stream, exactly as a consumer downloads it (base64 text). */
  readStoredStream(path: string): Promise<ObjectReadStream> {
    return this.store.readStream(path);
  }

  /**
   * Streams the plaintext of a stored result, verified against what its job recorded (see
   * ResultStreamOpener): nothing is buffered beyond a few chunks. `keyVersion` is the master-key
   * version that sealed it. Throws before reading when that version is not configured, and when the
   * stored object is visibly too short to hold the recorded plaintext.
   */
  async openStream(path: string, expected: ExpectedPlaintext, keyVersion: string): Promise<OpenedResultStream> {
    const keys = this.keysByVersion.get(keyVersion);
    if (keys === undefined) {
      throw new StorageError(
        FetCode.Internal,
        `the result was sealed with key version ${keyVersion}, which is not configured: set APP_ENC_KEY_${keyVersion} to the master key of that version`,
      );
    }
    const stored = await this.store.readStream(path);
    if (stored.sizeBytes < sealedObjectBytes(expected.sizeBytes)) {
      stored.stream.destroy();
      throw new ResultVerificationError(
        'too-short',
        `result object is ${stored.sizeBytes} bytes, too short to seal the ${expected.sizeBytes} bytes its job recorded`,
      );
    }
    const plaintext = new ResultStreamOpener(keys, expected);
    // Either side failing destroys the other: a store error reaches the consumer as the opener's
    // error, and a consumer that goes away releases the store's connection or file.
    pipeline(stored.stream, plaintext, () => undefined);
    return { plaintext, storedBytes: stored.sizeBytes };
  }
}

const workerTag = (attempt: ResultAttempt): string => attempt.workerId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120);
