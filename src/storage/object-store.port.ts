/** One object being written. Nothing is visible under its key until `complete` resolves. */
export interface ObjectUpload {
  /** Resolves when the chunk is accepted; waits (backpressure) while earlier parts are in flight. */
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
  read(key: string): Promise<Buffer>;
  /** Readiness probe: throws when the store cannot be used. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const OBJECT_STORE = Symbol('OBJECT_STORE');

export const resultObjectKey = (jobId: string): string => `external-data/${jobId}.json`;
