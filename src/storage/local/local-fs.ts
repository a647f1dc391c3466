import { open } from 'node:fs/promises';
import { FetCode } from '../../engine/errors/fet-code.js';
import { StorageError } from '../storage.error.js';

/** Makes the rename itself durable; best effort, as some file systems refuse fsync on a directory. */
export async function syncDirectory(path: string): Promise<void> {
  try {
    const dir = await open(path, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // The object is already visible and complete; durability of the directory entry is a bonus.
  }
}

export function fsFailure(what: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
  return new StorageError(FetCode.StorageFailed, `${what}: ${reason}`);
}
