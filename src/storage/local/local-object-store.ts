import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { FetCode } from '../../common/errors/fet-code.js';
import type { ObjectStore, ObjectUpload } from '../object-store.port.js';
import { assertSafeObjectKey, objectNotFound } from '../object-key.js';
import { StorageError } from '../storage.error.js';

/** Temp files live beside the results so the final rename stays on one file system (atomic). */
export const LOCAL_UPLOADS_DIR = '.uploads';

/**
 * The embedded object store: one file per key under `root`. An upload is written to
 * `<root>/.uploads/<random>.part`, then fsynced and renamed into place, so a reader sees either
 * nothing or the whole object, even across a crash.
 */
export class LocalObjectStore implements ObjectStore {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async beginUpload(key: string): Promise<ObjectUpload> {
    const target = this.pathOf(key);
    const uploads = join(this.root, LOCAL_UPLOADS_DIR);
    const temp = join(uploads, `${randomUUID()}.part`);
    try {
      await mkdir(uploads, { recursive: true });
      return new LocalUpload(await open(temp, 'wx'), temp, target, key);
    } catch (error) {
      throw fsFailure(`cannot start writing ${key}`, error);
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw fsFailure(`cannot check ${key}`, error);
    }
  }

  async read(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (isNotFound(error)) throw objectNotFound(key);
      throw fsFailure(`cannot read ${key}`, error);
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    try {
      await mkdir(dirname(target), { recursive: true });
      // rename(2) replaces the target atomically: a reader sees the old object or the new one.
      await rename(this.pathOf(from), target);
    } catch (error) {
      if (isNotFound(error)) throw objectNotFound(from);
      throw fsFailure(`cannot move ${from} to ${to}`, error);
    }
    await syncDirectory(dirname(target));
  }

  async delete(key: string): Promise<void> {
    try {
      await rm(this.pathOf(key), { force: true });
    } catch (error) {
      throw fsFailure(`cannot delete ${key}`, error);
    }
  }

  async ping(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
    } catch (error) {
      throw fsFailure(`results directory ${this.root} is not writable`, error);
    }
  }

  /**
   * Deletes temp files a crashed process left behind. Only files older than `olderThanMs`, so an
   * upload another process sharing the directory is writing right now is never touched.
   */
  async removeStaleUploads(olderThanMs = 24 * 60 * 60 * 1000): Promise<number> {
    const uploads = join(this.root, LOCAL_UPLOADS_DIR);
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(uploads);
    } catch {
      return 0;
    }
    for (const name of names) {
      const path = join(uploads, name);
      try {
        if (Date.now() - (await stat(path)).mtimeMs < olderThanMs) continue;
        await rm(path, { force: true });
        removed += 1;
      } catch {
        // Raced with another cleaner or a finishing upload: nothing to do.
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    // Nothing held open between uploads.
  }

  private pathOf(key: string): string {
    assertSafeObjectKey(key);
    const path = resolve(this.root, key);
    const inside = relative(this.root, path);
    if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || inside.split(sep)[0] === LOCAL_UPLOADS_DIR) {
      throw new StorageError(FetCode.StorageFailed, `invalid object key ${JSON.stringify(key)}: outside the results directory`);
    }
    return path;
  }
}

class LocalUpload implements ObjectUpload {
  private state: 'open' | 'completed' | 'aborted' = 'open';

  constructor(
    private readonly file: FileHandle,
    private readonly temp: string,
    private readonly target: string,
    private readonly key: string,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.state !== 'open') throw new StorageError(FetCode.StorageFailed, `upload of ${this.key} is already ${this.state}`);
    try {
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await this.file.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
    } catch (error) {
      throw fsFailure(`cannot write ${this.key}`, error);
    }
  }

  async complete(): Promise<void> {
    if (this.state !== 'open') throw new StorageError(FetCode.StorageFailed, `upload of ${this.key} is already ${this.state}`);
    try {
      // Data must be on disk before the rename publishes it, or a crash could expose a short file.
      await this.file.sync();
      await this.file.close();
      await mkdir(dirname(this.target), { recursive: true });
      await rename(this.temp, this.target);
      this.state = 'completed';
    } catch (error) {
      throw fsFailure(`cannot store ${this.key}`, error);
    }
    await syncDirectory(dirname(this.target));
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.file.close().catch(() => undefined);
    await rm(this.temp, { force: true }).catch(() => undefined);
  }
}

/** Makes the rename itself durable; best effort, as some file systems refuse fsync on a directory. */
async function syncDirectory(path: string): Promise<void> {
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

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function fsFailure(what: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
  return new StorageError(FetCode.StorageFailed, `${what}: ${reason}`);
}
