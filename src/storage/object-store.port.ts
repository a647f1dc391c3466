import type { ResultUpload } from '../engine/result/result-upload.js';
import type { Readable } from 'node:stream';

/** One object being written: nothing is visible under its key until `complete` resolves. */
export type ObjectUpload = ResultUpload;

/** A stored object opened for reading. */
export interface ObjectReadStream {
  /** The object's bytes. The caller reads it to the end or destroys it (either releases the file or connection). */
  readonly stream: Readable;
  /** The object's size: what the stream delivers when it ends without error. */
  readonly sizeBytes: number;
}

export interface UploadOptions {
  readonly provisional?: boolean;
}

/** Where results live: a local directory (embedded) or an S3 bucket (distributed). */
export interface ObjectStore {
  readonly kind: 'local' | 's3';
  /**
   * Starts a fresh upload to `key` (a logical key such as `external-data/<jobId>.json`).
   * `provisional`: the object is moved to its final key (`move`) before anything relies on it, so
   * its own name need not be made durable when it completes (the move's is).
   */
  beginUpload(key: string, options?: UploadOptions): Promise<ObjectUpload>;
  exists(key: string): Promise<boolean>;
  /**
   * Makes the object at `from` the object at `to` (replacing it whole, never a mix of the two) and
   * removes `from`. How an attempt's result becomes the job's result once its commit succeeded.
   */
  move(from: string, to: string): Promise<void>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object under the folder `key` (`<key>/…`); none is not an error. */
  deleteFolder(key: string): Promise<void>;
  read(key: string): Promise<Buffer>;
  /**
   * Opens the object for a streaming read, so a large result never has to fit in memory. A missing
   * object rejects with StorageError FET-1001, as `read`; a store that cannot be reached right now
   * with FET-0003. An error while the stream runs (a cut connection) arrives on the stream as the
   * store reported it: treat any such error as a failed read.
   */
  readStream(key: string): Promise<ObjectReadStream>;
  /** Readiness probe: throws when the store cannot be used. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const OBJECT_STORE = Symbol('OBJECT_STORE');

export const resultObjectKey = (jobId: string): string => `external-data/${jobId}.json`;

/**
 * Where one attempt writes its result before the commit decides whether it becomes the job's: a key
 * per (job, attempt, worker), so two workers that both believe they hold a job never write the same
 * object, and the loser's object can be deleted without touching the winner's.
 */
export const attemptObjectKey = (jobId: string, attempt: number, workerTag: string): string =>
  `external-data/.attempts/${jobId}/${attempt}-${workerTag}.json`;

/** A per-table result's part: `external-data/<jobId>/<datasource>/<fileName>`, beside its manifest `external-data/<jobId>.json`. */
export const resultPartKey = (jobId: string, partPath: string): string => `external-data/${jobId}/${partPath}`;

/** Where one attempt writes its parts before the commit: a folder beside the attempt's own object (its manifest). */
export const attemptPartsFolder = (jobId: string, attempt: number, workerTag: string): string =>
  `external-data/.attempts/${jobId}/${attempt}-${workerTag}`;
