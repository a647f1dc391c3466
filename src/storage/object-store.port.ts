/** One object being written. Nothing is visible under its key until `complete` resolves. */
export interface ObjectUpload {
  /**
   * Resolves when the chunk is accepted; waits (backpressure) while earlier parts are in flight.
   * Once it resolves the upload holds no reference to `chunk`: the caller may reuse its memory.
   */
  write(chunk: Buffer): Promise<void>;
  /** Makes the object visible, atomically. */
  complete(): Promise<void>;
  /** Discards everything written; never throws. Safe to call after a failed write or complete. */
  abort(): Promise<void>;
}

/** Where results live: a local directory (embedded) or an S3 bucket (distributed). */
export interface ObjectStore {
  readonly kind: 'local' | 's3';
  /** Starts a fresh upload to `key` (a logical key such as `external-data/<jobId>.json`). */
  beginUpload(key: string): Promise<ObjectUpload>;
  exists(key: string): Promise<boolean>;
  /**
   * Makes the object at `from` the object at `to` (replacing it whole, never a mix of the two) and
   * removes `from`. How an attempt's result becomes the job's result once its commit succeeded.
   */
  move(from: string, to: string): Promise<void>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  read(key: string): Promise<Buffer>;
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
