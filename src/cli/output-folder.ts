import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { partPath, type PartName, type PartSink, type PartTarget } from '../engine/formats/result-parts.js';
import { writableUpload } from '../engine/output/result-targets.js';
import type { ResultUpload } from '../engine/result/result-upload.js';
import { UsageError } from './cli-io.js';

/** The manifest's name inside the folder. */
export const MANIFEST_FILE = 'manifest.json';

/**
 * A per-table result written as a folder (`<datasource>/<table>.<ext>` and `manifest.json`) under a
 * temporary name beside its final one, renamed into place only once every part is complete: a
 * failure, a kill or Ctrl-C never leaves a folder, or some of its parts, under the final name.
 */
export class OutputFolder implements PartSink {
  private constructor(
    readonly path: string,
    private readonly temporary: string,
  ) {}

  /** The final folder may not exist yet, or be empty; its parent must exist. */
  static async open(path: string): Promise<OutputFolder> {
    const existing = await stat(path).catch(() => undefined);
    if (existing && (!existing.isDirectory() || (await readdir(path)).length > 0)) {
      throw new UsageError(`--out: ${path} exists and is not an empty folder (a per-table format writes a folder of parts)`);
    }
    const parent = await stat(dirname(path)).catch(() => undefined);
    if (!parent?.isDirectory()) throw new UsageError(`--out: the folder ${dirname(path)} does not exist`);
    const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
    mkdirSync(temporary, { mode: 0o700 });
    return new OutputFolder(path, temporary);
  }

  openPart(part: PartName): PartTarget {
    const path = partPath(part);
    mkdirSync(join(this.temporary, dirname(path)), { recursive: true, mode: 0o700 });
    return { path, upload: this.file(path) };
  }

  openManifest(): ResultUpload {
    return this.file(MANIFEST_FILE);
  }

  /** Once every part and the manifest are complete: renamed over the final (absent or empty) folder. */
  async commit(): Promise<void> {
    await rmdir(this.path).catch(() => undefined);
    await rename(this.temporary, this.path);
  }

  /** Removes the temporary folder and every part in it; never throws. */
  async discard(): Promise<void> {
    await rm(this.temporary, { recursive: true, force: true }).catch(() => undefined);
  }

  private file(relative: string): ResultUpload {
    return writableUpload(createWriteStream(join(this.temporary, relative), { flags: 'wx', mode: 0o600 }));
  }
}
