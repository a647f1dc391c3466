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

const UNSAFE_IN_SEGMENT = /[^A-Za-z0-9_-]/g;

/**
 * A name (a datasource's config name) as one path segment of an object key: itself when it is made of
 * `[A-Za-z0-9_-]` (every config name the API accepts is), otherwise each other byte of its UTF-8
 * percent-encoded as a part's file name is, `.` included, so no segment is ever `.` or `..`.
 */
export function pathSegment(name: string): string {
  const safe = Buffer.from(name, 'utf8')
    .toString('latin1')
    .replace(UNSAFE_IN_SEGMENT, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return safe.length > 0 ? safe : '%';
}
