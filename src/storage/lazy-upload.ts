import type { ResultUpload } from '../engine/result/result-upload.js';

/**
 * An upload that begins on its first write (or its completion): an extraction that fails while it
 * plans never starts one in the store. Remembers whether it completed, for the attempt's clean-up.
 */
export class LazyUpload implements ResultUpload {
  private started: Promise<ResultUpload> | undefined;
  private done = false;

  constructor(private readonly begin: () => Promise<ResultUpload>) {}

  get completed(): boolean {
    return this.done;
  }

  async write(chunk: Buffer): Promise<void> {
    await (await this.upload()).write(chunk);
  }

  async complete(): Promise<void> {
    await (await this.upload()).complete();
    this.done = true;
  }

  /** Nothing once completed: what remains of a completed object is its owner's to delete. */
  async abort(): Promise<void> {
    if (this.started === undefined || this.done) return;
    // A begin that failed has nothing to abort.
    const upload = await this.started.catch(() => undefined);
    await upload?.abort();
  }

  private upload(): Promise<ResultUpload> {
    this.started ??= this.begin();
    return this.started;
  }
}
