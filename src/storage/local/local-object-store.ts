import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { FetCode } from '../../engine/errors/fet-code.js';
import type { ObjectReadStream, ObjectStore, ObjectUpload, UploadOptions } from '../object-store.port.js';
import { assertSafeObjectKey, objectNotFound } from '../object-key.js';
import { StorageError } from '../storage.error.js';
import { fsFailure, isNotFound, KnownDirectories, syncDirectory } from './local-fs.js';
import { LocalUpload } from './local-upload.js';
import { Clock, systemClock } from '../../common/clock/clock.js';

/** Temp files live beside the results so the final rename stays on one file system (atomic). */
export const LOCAL_UPLOADS_DIR = '.uploads';
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * The embedded object store: one file per key under `root`. An upload is written to
 * `<root>/.uploads/<random>.part`, then fsynced and renamed into place, so a reader sees either
 * nothing or the whole object, even across a crash.
 */
export class LocalObjectStore implements ObjectStore {
  readonly kind = 'local' as const;
  readonly root: string;
  private readonly directories = new KnownDirectories();

  constructor(
    root: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.root = resolve(root);
  }

  async beginUpload(key: string, options: UploadOptions = {}): Promise<ObjectUpload> {
    const target = this.pathOf(key);
    const uploads = join(this.root, LOCAL_UPLOADS_DIR);
    const temp = join(uploads, `${randomUUID()}.part`);
    try {
      const file = await this.directories.within(uploads, () => open(temp, 'wx'));
      return new LocalUpload(file, temp, target, key, this.directories, options.provisional !== true);
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

  async readStream(key: string): Promise<ObjectReadStream> {
    const path = this.pathOf(key);
    let file: FileHandle;
    try {
      file = await open(path, 'r');
    } catch (error) {
      if (isNotFound(error)) throw objectNotFound(key);
      throw fsFailure(`cannot read ${key}`, error);
    }
    try {
      // Size and bytes from the one open file: a rename replacing the object meanwhile changes neither.
      const info = await file.stat();
      if (!info.isFile()) throw objectNotFound(key);
      // The stream closes the file when it ends, fails or is destroyed.
      return { stream: file.createReadStream({ highWaterMark: READ_CHUNK_BYTES }), sizeBytes: info.size };
    } catch (error) {
      await file.close().catch(() => undefined);
      throw fsFailure(`cannot read ${key}`, error);
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    const source = this.pathOf(from);
    try {
      // rename(2) replaces the target atomically: a reader sees the old object or the new one.
      await this.directories.within(dirname(target), () => rename(source, target));
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

  async deleteFolder(key: string): Promise<void> {
    const path = this.pathOf(key);
    this.directories.forget(path);
    try {
      await rm(path, { recursive: true, force: true });
    } catch (error) {
      throw fsFailure(`cannot delete ${key}/`, error);
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
        if (this.clock.nowMs() - (await stat(path)).mtimeMs < olderThanMs) continue;
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
