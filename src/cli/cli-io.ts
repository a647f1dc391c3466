import type { Readable } from 'node:stream';

/** What a command reads and writes: the process's, or a test's. */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** For `--request -`; the process's stdin when absent. */
  readonly stdin?: Readable;
  /** Ctrl-C: the command stops what it does, cleans up and exits with EXIT.interrupted. */
  readonly interrupt?: AbortSignal;
}

/** How `fetcher` ends. `result` and `rotate-credentials` keep their own meanings of 1 and 2 (their --help says). */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** Thrown for anything that should end a command with a one-line message and a non-zero exit. */
export class CliError extends Error {}

/** A command line a command cannot act on (a flag, a value, a file it names): exit 2, naming what is wrong. */
export class UsageError extends CliError {}

export function writeAll(stream: NodeJS.WritableStream, data: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(data, (error) => (error ? reject(error) : resolve())));
}
