import type { Readable } from 'node:stream';

/** Bytes received ahead of the renderer before the socket is no longer read (the server then waits). */
const READ_AHEAD_BYTES = 256 * 1024;

/**
 * The chunks of one `COPY … TO STDOUT` stream, taken synchronously while they are there: a promise
 * only when the renderer has caught up with the socket. Backpressure is the stream's: once
 * READ_AHEAD_BYTES wait here the stream is paused, pg-copy-streams stops reading the socket, TCP
 * fills up and the server blocks, however large the table.
 */
export class CopyOutReader {
  private chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private discarding = false;
  private resolveSettled: () => void = () => undefined;
  /** Resolves once the statement is over on the connection: the stream ended or failed. */
  readonly settled: Promise<void>;

  constructor(private readonly stream: Readable) {
    this.settled = new Promise<void>((resolve) => {
      this.resolveSettled = resolve;
    });
    stream.on('data', (chunk: Buffer) => {
      if (this.discarding) return;
      this.chunks.push(chunk);
      this.queued += chunk.length;
      if (this.queued >= READ_AHEAD_BYTES) stream.pause();
      this.notify();
    });
    stream.on('end', () => this.finish());
    stream.on('error', (error: unknown) => this.finish(error));
  }

  get isSettled(): boolean {
    return this.ended;
  }

  /** The next chunk if one is here, null at the end of the stream, undefined when it must be waited for. */
  take(): Buffer | null | undefined {
    const chunk = this.chunks.shift();
    if (chunk !== undefined) {
      this.queued -= chunk.length;
      return chunk;
    }
    if (this.failure !== undefined) throw this.failure.error;
    if (this.ended) return null;
    return undefined;
  }

  /** Resolves when take() has something to say (a chunk, the end, or a failure). */
  wait(): Promise<void> {
    if (this.chunks.length > 0 || this.ended) return Promise.resolve();
    const ready = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    this.stream.resume();
    return ready;
  }

  /**
   * Drops what arrives from now on and keeps reading, so the rest of the stream (what was in
   * flight when the statement was cancelled) cannot hold the socket and the error reaches pg.
   */
  discard(): void {
    this.discarding = true;
    this.chunks = [];
    this.queued = 0;
    this.stream.resume();
  }

  private finish(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (error !== undefined) this.failure = { error };
    this.resolveSettled();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
