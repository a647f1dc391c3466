import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { markProblems, mergeMarks } from '../engine/incremental/stream-marks.js';
import type { StreamMarks } from '../engine/request/incremental-request.js';
import { UsageError } from './cli-io.js';

/** What `--state <file>` holds: the marks of one stream, as the service's stream routes show them. */
export interface StreamState {
  readonly stream: string;
  readonly marks: StreamMarks;
}

/**
 * The committed marks of `stream` from the state file; none when the file does not exist yet (a
 * first run). A file of another stream, or one that is not a state, is a usage error: reading
 * from the wrong marks would skip or repeat rows.
 */
export async function readState(path: string, stream: string): Promise<StreamMarks | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`--state: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--state: ${path} is not JSON`);
  }
  const state = parsed as Partial<StreamState> | null;
  if (typeof state !== 'object' || state === null || typeof state.stream !== 'string')
    throw new UsageError(`--state: ${path} is not a state file ({"stream", "marks"})`);
  if (state.stream !== stream) throw new UsageError(`--state: ${path} holds stream '${state.stream}', not '${stream}'`);
  const problems = Object.entries(markProblems(state.marks, 'marks'));
  if (problems.length > 0) throw new UsageError(`--state: ${path}: ${problems[0][0]}: ${problems[0][1]}`);
  return state.marks as StreamMarks;
}

/**
 * Writes the marks after a run that succeeded, merged over the previous ones (a run of some of the
 * stream's tables keeps the others' marks), under a temporary name renamed into place: a crash
 * leaves the old state or the new one, never half of one.
 */
export async function writeState(path: string, stream: string, previous: StreamMarks | undefined, next: StreamMarks): Promise<void> {
  const state: StreamState = { stream, marks: mergeMarks(previous ?? {}, next) };
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new UsageError(
      `--state: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); the output is kept, the marks did not move`,
    );
  }
}
