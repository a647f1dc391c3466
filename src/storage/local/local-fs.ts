import { mkdir, open } from 'node:fs/promises';
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

/**
 * Directories this process made or found, so a steady stream of uploads does not mkdir for each.
 * One removed since (a deleted per-table folder, an operator's cleanup) shows as ENOENT from the
 * work that needs it: it is then made again and the work run once more.
 */
export class KnownDirectories {
  private readonly known = new Set<string>();

  constructor(private readonly maxRemembered = 4_096) {}

  async within<T>(dir: string, work: () => Promise<T>): Promise<T> {
    if (!this.known.has(dir)) await this.make(dir);
    try {
      return await work();
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.known.delete(dir);
      await this.make(dir);
      return work();
    }
  }

  /** A directory removed by this process: the next work in it makes it first. */
  forget(dir: string): void {
    for (const known of this.known) if (known === dir || known.startsWith(`${dir}/`)) this.known.delete(known);
  }

  private async make(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    if (this.known.size >= this.maxRemembered) this.known.clear();
    this.known.add(dir);
  }
}

export function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
