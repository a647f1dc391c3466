import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { UsageError, type CliIo } from './cli-io.js';

/** At most this much request text: a data request is small (the service takes 1 MiB bodies). */
const MAX_INPUT_BYTES = 1024 * 1024;

/** A file's text, or stdin's for `-`; unreadable or over 1 MiB is a usage error naming `flag`. */
export async function readInput(path: string, flag: string, io: CliIo): Promise<string> {
  let content: string;
  try {
    content = path === '-' ? await text(io.stdin ?? process.stdin) : await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path === '-' ? 'stdin' : path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (Buffer.byteLength(content) > MAX_INPUT_BYTES) throw new UsageError(`${flag}: larger than 1 MiB`);
  return content;
}
