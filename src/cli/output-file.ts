import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import { UsageError } from './cli-io.js';

/**
 * A file written under a temporary name beside its final one and renamed into place only once
 * complete: a failure, a kill or Ctrl-C never leaves a file under the final name (nor replaces one
 * that was there).
 */
export class OutputFile {
  readonly stream: WriteStream;
  private readonly temporary: string;

  private constructor(
    readonly path: string,
    stream: WriteStream,
    temporary: string,
  ) {
    this.stream = stream;
    this.temporary = temporary;
  }

  /** Opens the temporary file (exclusively, mode 0600: a result is data); a folder that is not there is a usage error. */
  static async open(path: string): Promise<OutputFile> {
    const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
    const stream = createWriteStream(temporary, { flags: 'wx', mode: 0o600 });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (error: NodeJS.ErrnoException) =>
        reject(new UsageError(`--out: cannot write ${path} (${error.code ?? error.message})`)),
      );
    });
    return new OutputFile(path, stream, temporary);
  }

  /** Once the stream finished: closed, then renamed over the final name. */
  async commit(): Promise<void> {
    if (!this.stream.closed) await once(this.stream, 'close');
    await rename(this.temporary, this.path);
  }

  /** Removes the temporary file; never throws. */
  async discard(): Promise<void> {
    this.stream.destroy();
    await rm(this.temporary, { force: true }).catch(() => undefined);
  }
}
