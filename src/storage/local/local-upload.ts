import type { FileHandle } from 'node:fs/promises';
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FetCode } from '../../engine/errors/fet-code.js';
import { BufferedUpload } from '../../engine/result/buffered-writer.js';
import { StorageError } from '../storage.error.js';
import { fsFailure, type KnownDirectories, syncDirectory } from './local-fs.js';

/** Bytes gathered before a file write, and how many such writes may be in flight at once. */
export const LOCAL_WRITE_BYTES = 512 * 1024;
const WRITES_IN_FLIGHT = 2;

/**
 * Write buffers an ended upload gave back, for the next one: a small job then allocates none
 * (half a MiB of fresh memory per job was garbage the collector had to chase). Bounded, so a burst
 * of parallel uploads leaves at most this many behind.
 */
const FREE_BUFFERS: Buffer[] = [];
const MAX_FREE_BUFFERS = 2 * WRITES_IN_FLIGHT + 2;

const takeBuffer = (): Buffer => FREE_BUFFERS.pop() ?? Buffer.allocUnsafe(LOCAL_WRITE_BYTES);

/**
 * One object being written to a temp file, published by rename. Writes go out behind the caller:
 * `write` copies into a buffer of its own and returns at once while a file write has room, so the
 * caller keeps encrypting while the kernel copies (on a 2-core machine, waiting for each write
 * left the main thread idle a third of the time). At most WRITES_IN_FLIGHT buffers are out; a
 * failed write fails the next call, and `complete` waits for every write before fsync and rename.
 */
export class LocalUpload extends BufferedUpload {
  private state: 'open' | 'completed' | 'aborted' = 'open';
  private buffer: Buffer = takeBuffer();
  private readonly spare: Buffer[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: StorageError | undefined;
  private position = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly temp: string,
    private readonly target: string,
    private readonly key: string,
    private readonly directories: KnownDirectories,
    /** fsync the directory after the rename: false for a provisional object, whose move is synced instead. */
    private readonly durableName: boolean,
  ) {
    super();
  }

  override async complete(): Promise<void> {
    this.assertOpen();
    try {
      if (this.filled > 0) await this.flush();
      await Promise.all(this.inFlight);
      this.assertOpen();
      // Data must be on disk before the rename publishes it, or a crash could expose a short file.
      await this.file.sync();
      await this.file.close();
      await this.directories.within(dirname(this.target), () => rename(this.temp, this.target));
      this.state = 'completed';
      this.giveBuffersBack();
    } catch (error) {
      throw fsFailure(`cannot store ${this.key}`, error);
    }
    if (this.durableName) await syncDirectory(dirname(this.target));
  }

  override async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    // A write still running on the handle must end before the file goes.
    await Promise.allSettled(this.inFlight);
    this.giveBuffersBack();
    await this.file.close().catch(() => undefined);
    await rm(this.temp, { force: true }).catch(() => undefined);
  }

  /** Only once no write is in flight: nothing refers to the buffers any more. */
  private giveBuffersBack(): void {
    for (const buffer of [this.buffer, ...this.spare.splice(0)]) {
      if (FREE_BUFFERS.length < MAX_FREE_BUFFERS && buffer.length === LOCAL_WRITE_BYTES) FREE_BUFFERS.push(buffer);
    }
  }

  protected override assertOpen(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state !== 'open') throw new StorageError(FetCode.StorageFailed, `upload of ${this.key} is already ${this.state}`);
  }

  protected override filling(): Buffer {
    return this.buffer;
  }

  /** Hands the buffer to a background write; waits only when WRITES_IN_FLIGHT are already out. */
  protected override async flush(): Promise<void> {
    while (this.inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(this.inFlight);
    this.assertOpen();
    const full = this.buffer;
    const bytes = full.subarray(0, this.filled);
    // Writes in flight together each name their place in the file: the file's own offset would let
    // the thread pool reorder them.
    const at = this.position;
    this.position += bytes.length;
    const tracked: Promise<void> = this.writeAll(bytes, at).then(
      () => {
        this.inFlight.delete(tracked);
        this.spare.push(full);
      },
      (error: unknown) => {
        this.inFlight.delete(tracked);
        this.failure ??= fsFailure(`cannot write ${this.key}`, error);
      },
    );
    this.inFlight.add(tracked);
    this.buffer = this.spare.pop() ?? takeBuffer();
    this.filled = 0;
  }

  private async writeAll(bytes: Buffer, position: number): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await this.file.write(bytes, offset, bytes.length - offset, position + offset);
      offset += bytesWritten;
    }
  }
}
