import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileExtension, resolveOutput } from '../engine/formats/output-format.js';
import { partFileName, partPath, type ResultPart } from '../engine/formats/result-parts.js';
import { hmacMatches } from '../engine/result/result-opener.js';
import { CliError } from './cli-io.js';
import type { JobView, ResultApiClient } from './result-api-client.js';
import { openWithAny, type KeyCandidate } from './result-key-candidates.js';

/** What `fetcher result <jobId> --out DIR` needs of the job it already fetched and checked. */
export interface SavedJob {
  readonly jobId: string;
  readonly job: JobView;
  readonly api: ResultApiClient;
  /** Keys of the job's version: parts are then fetched sealed and opened here; without, the server verifies them. */
  readonly keys?: readonly KeyCandidate[];
  /** The verified plaintext of the object at resultPath: the result, or a per-table result's manifest. */
  readonly plaintext: Buffer;
}

/**
 * Writes a job's result into `folder`: a one-object result as `<jobId>.<ext>`, a per-table result as
 * every part under `<datasource>/<fileName>` (names made path-safe here, never taken from the server),
 * each verified before it is kept. Any failure removes every file this call wrote, and throws.
 */
export async function saveResult(folder: string, saved: SavedJob, say: (line: string) => void): Promise<number> {
  const output = resolveOutput(saved.job.output);
  const parts = saved.job.result?.parts;
  if (parts === undefined || parts.length === 0) {
    const file = join(folder, `${saved.jobId}.${fileExtension(output)}`);
    await keepFile(file, saved.plaintext);
    say(`wrote ${file} (${saved.plaintext.length} bytes)`);
    return 0;
  }
  const written: string[] = [];
  try {
    for (const part of parts) {
      const file = join(folder, partPath({ datasource: part.datasource, fileName: partFileName(part.table, part) }));
      const bytes = await verifiedPart(saved, part).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new CliError(
          message.startsWith('part ') ? message : `part ${part.datasource}/${part.table} of job ${saved.jobId}: ${message}`,
        );
      });
      written.push(file);
      await keepFile(file, bytes);
      say(`${part.datasource}/${part.table}: verified (${bytes.length} bytes, SHA-256 ${part.sha256}) → ${file}`);
    }
  } catch (error) {
    await Promise.all(written.map((file) => rm(file, { force: true })));
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`${message}; nothing of job ${saved.jobId}'s result was kept in ${folder}`);
  }
  say(`${parts.length} parts of job ${saved.jobId} (${output.format}, ${output.compression}) in ${folder}`);
  return 0;
}

/** The part's file, checked against what the job lists: its size, SHA-256, and HMAC when a key is at hand. */
async function verifiedPart(saved: SavedJob, part: ResultPart): Promise<Buffer> {
  const what = `part ${part.datasource}/${part.table} of job ${saved.jobId}`;
  const mismatch = (check: string) => new CliError(`${what} failed verification: ${check}`);
  let bytes: Buffer;
  if (saved.keys !== undefined) {
    const { opened } = openWithAny((await saved.api.downloadPart(saved.jobId, part, true)).body, saved.keys, '');
    if (part.hmac === undefined || !hmacMatches(opened.hmac, part.hmac)) {
      throw mismatch(`HMAC mismatch (expected ${part.hmac}, computed ${opened.hmac})`);
    }
    bytes = opened.plaintext;
  } else {
    const download = await saved.api.downloadPart(saved.jobId, part, false);
    if (download.etag !== undefined && download.etag.toLowerCase() !== part.sha256)
      throw mismatch(`ETag ${download.etag} is not its SHA-256`);
    bytes = download.body;
  }
  if (bytes.length !== part.sizeBytes) throw mismatch(`size mismatch (the job says ${part.sizeBytes} bytes, received ${bytes.length})`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== part.sha256.toLowerCase()) throw mismatch(`SHA-256 mismatch (expected ${part.sha256}, computed ${sha256})`);
  return bytes;
}

/** Written beside, then renamed: the file appears whole or not at all. */
async function keepFile(file: string, bytes: Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  try {
    await writeFile(partial, bytes, { flag: 'wx' });
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw new CliError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
