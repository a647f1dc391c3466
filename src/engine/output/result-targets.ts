import type { Writable } from 'node:stream';
import type { PartSink } from '../formats/result-parts.js';
import type { ResultUpload } from '../result/result-upload.js';

/** Whether `sink` takes one part per table rather than one object. */
export function isPartSink(sink: Writable | ResultUpload | PartSink): sink is PartSink {
  const candidate = sink as Partial<PartSink>;
  return typeof candidate.openPart === 'function' && typeof candidate.openManifest === 'function';
}

/** Whether `sink` is an upload of the caller's own rather than a Node Writable. */
export function isResultUpload(sink: Writable | ResultUpload | PartSink): sink is ResultUpload {
  const candidate = sink as Partial<ResultUpload>;
  return typeof candidate.complete === 'function' && typeof candidate.abort === 'function' && typeof candidate.write === 'function';
}

export interface WritableUploadOptions {
  /** false: `complete` leaves the stream open (stdout, a socket the caller goes on using). Default true. */
  readonly end?: boolean;
}

/**
 * A Node Writable as an upload. Each write resolves once the stream has handed the chunk on (its
 * callback), so the writer may reuse the chunk's memory and at most one chunk is in flight: the
 * stream's own backpressure, with no copy. `complete` ends the stream and waits for it to finish;
 * `abort` destroys it. A stream error fails the next write or the completion.
 */
export function writableUpload(stream: Writable, options: WritableUploadOptions = {}): ResultUpload {
  let failure: Error | undefined;
  const onError = (error: Error) => {
    failure ??= error;
  };
  stream.on('error', onError);
  const settle = (resolve: () => void, reject: (error: Error) => void) => (error?: Error | null) => {
    const problem = error ?? failure;
    if (problem) reject(problem);
    else resolve();
  };
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        stream.write(chunk, settle(resolve, reject));
      }),
    complete: () =>
      new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        if (options.end === false) return stream.write(Buffer.alloc(0), settle(resolve, reject));
        stream.end(settle(resolve, reject));
      }).finally(() => stream.off('error', onError)),
    abort: async () => {
      stream.off('error', onError);
      // A destroyed stream may still report the cause of its end: nobody listens any more.
      stream.on('error', () => undefined);
      if (options.end !== false) stream.destroy();
    },
  };
}

/** Keeps the bytes in memory, bounded by the result limit the writer enforces: what extract returns without a sink. */
export class MemoryTarget implements ResultUpload {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  async write(chunk: Buffer): Promise<void> {
    // The writer reuses its buffers once a write resolves: keep a copy.
    this.chunks.push(Buffer.from(chunk));
    this.size += chunk.length;
  }

  async complete(): Promise<void> {}

  async abort(): Promise<void> {
    this.chunks.length = 0;
    this.size = 0;
  }

  get bytes(): number {
    return this.size;
  }

  contents(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
