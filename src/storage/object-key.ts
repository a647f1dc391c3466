import { FetCode } from '../engine/errors/fet-code.js';
import { StorageError } from './storage.error.js';

/**
 * Refuses keys that could escape the store's root or confuse a file system: empty, absolute,
 * `..` anywhere, NUL, backslashes (a separator on Windows), or longer than S3 allows.
 */
export function assertSafeObjectKey(key: string): void {
  const problem =
    key.length === 0
      ? 'is empty'
      : key.includes('\0')
        ? 'contains NUL'
        : key.startsWith('/') || /^[A-Za-z]:/.test(key)
          ? 'is absolute'
          : key.includes('..')
            ? 'contains ".."'
            : key.includes('\\')
              ? 'contains a backslash'
              : Buffer.byteLength(key) > 1024
                ? 'is longer than 1024 bytes'
                : undefined;
  if (problem) throw new StorageError(FetCode.StorageFailed, `invalid object key ${JSON.stringify(key.slice(0, 200))}: it ${problem}`);
}

export function objectNotFound(key: string): StorageError {
  return new StorageError(FetCode.NotFound, `result object ${key} does not exist`);
}
