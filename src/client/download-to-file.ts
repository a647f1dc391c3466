import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DownloadOptions, FetcherClient } from './fetcher-client.js';

/**
 * Downloads a job's result to `path`: written to a temporary file beside it and renamed only once the
 * whole stream ended verified, so `path` never holds a partial or corrupted result; on any failure
 * the temporary file is removed and the error thrown. Resolves with the SHA-256 the server announced.
 */
export async function downloadToFile(
  client: FetcherClient,
  jobId: string,
  path: string,
  options: DownloadOptions = {},
): Promise<string | undefined> {
  const download = await client.download(jobId, options);
  const partial = `${path}.${randomUUID()}.partial`;
  try {
    await pipeline(Readable.fromWeb(download.stream), createWriteStream(partial, { flags: 'wx' }));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return download.sha256;
}
