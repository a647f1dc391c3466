import { FetCode } from '../engine/errors/fet-code.js';
import { partPath, type PartName, type PartSink, type PartTarget } from '../engine/formats/result-parts.js';
import type { ResultUpload } from '../engine/result/result-upload.js';
import { LazyUpload } from './lazy-upload.js';
import { assertSafeObjectKey } from './object-key.js';
import { resultPartKey, type ObjectStore } from './object-store.port.js';
import { StorageError } from './storage.error.js';

/** One object of a result: the key it ends up under, the key it is written to first, and its upload. */
interface StagedObject {
  readonly final: string;
  /** The attempt's own key; the final key itself when unstaged. */
  readonly staged: string;
  readonly upload: LazyUpload;
  published: boolean;
}

/** Where an attempt's objects are written before the commit (absent: straight to their final keys). */
export interface Staging {
  /** The attempt's own key for the result, or a per-table result's manifest. */
  readonly object: string;
  /** The folder under which the attempt writes its parts. */
  readonly partsFolder: string;
}

/**
 * Every object of one attempt's result: the result object, or a per-table result's parts and its
 * manifest (which takes the result object's keys). Uploads begin on their first write. Staged,
 * nothing is visible under a final key before `publish`, which moves every part, then the manifest;
 * a publish that fails removes the parts it had moved. `abort` aborts every upload and deletes every
 * completed object that was not published, so a failed result leaves no part behind.
 */
export class StagedObjects implements PartSink {
  private readonly main: StagedObject;
  private readonly parts: StagedObject[] = [];

  constructor(
    private readonly store: ObjectStore,
    private readonly jobId: string,
    path: string,
    private readonly staging?: Staging,
  ) {
    const staged = staging?.object ?? path;
    // A staged object becomes the result only by the move that publishes it, which is made durable then.
    const options = { provisional: staging !== undefined };
    this.main = { final: path, staged, upload: new LazyUpload(() => store.beginUpload(staged, options)), published: false };
  }

  /** The result object's upload (a one-object result), which is also the manifest's. */
  get upload(): LazyUpload {
    return this.main.upload;
  }

  /** Keys of the parts opened so far, in the order they were opened (the result order). */
  get partPaths(): string[] {
    return this.parts.map((part) => part.final);
  }

  openPart(part: PartName): PartTarget {
    // Both segments path-safe: a datasource name the API never accepts would be percent-encoded, not trusted.
    const relative = partPath(part);
    const final = resultPartKey(this.jobId, relative);
    const staged = this.staging === undefined ? final : `${this.staging.partsFolder}/${relative}`;
    assertSafeObjectKey(final);
    assertSafeObjectKey(staged);
    if (this.parts.some((existing) => existing.final === final)) {
      throw new StorageError(FetCode.StorageFailed, `two parts of job ${this.jobId} would both be stored as ${final}`);
    }
    const upload = new LazyUpload(() => this.store.beginUpload(staged, { provisional: this.staging !== undefined }));
    this.parts.push({ final, staged, upload, published: false });
    return { path: final, upload };
  }

  openManifest(): ResultUpload {
    return this.main.upload;
  }

  /** Staged: moves every part, then the result object (the manifest), to their final keys. Unstaged: nothing to do. */
  async publish(): Promise<void> {
    if (this.staging === undefined) return;
    const moved: string[] = [];
    try {
      for (const part of this.parts) {
        moved.push(part.final);
        await this.store.move(part.staged, part.final);
        part.published = true;
      }
      await this.store.move(this.main.staged, this.main.final);
      this.main.published = true;
      // The folder is empty now; a directory store would keep it.
      if (this.parts.length > 0) await this.store.deleteFolder(this.staging.partsFolder).catch(() => undefined);
    } catch (error) {
      // Never partial: no part outlives a publish that did not make it to the manifest.
      await Promise.all(moved.map((key) => this.store.delete(key).catch(() => undefined)));
      throw error;
    }
  }

  /**
   * Aborts every upload and deletes what a completed one left: staged, every object not published;
   * unstaged, the parts of a result whose manifest never completed (they sit under their final keys).
   * Never throws.
   */
  async abort(): Promise<void> {
    await Promise.all([this.main, ...this.parts].map((object) => object.upload.abort()));
    const leftovers =
      this.staging === undefined
        ? this.main.upload.completed
          ? []
          : this.parts.filter((part) => part.upload.completed)
        : [this.main, ...this.parts].filter((object) => object.upload.completed && !object.published);
    await Promise.all(leftovers.map((object) => this.store.delete(object.staged).catch(() => undefined)));
  }
}
