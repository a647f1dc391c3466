import { createHash } from 'node:crypto';
import { FetcherIntegrityError } from './fetcher-api-error.js';

/**
 * The body, passed through unchanged while it is hashed; at its end the SHA-256 is compared with
 * `expectedSha256` and, on a mismatch, the stream errors instead of closing. A consumer reading to the
 * end therefore either gets every byte of the announced result or an error: never a clean end on
 * corrupted or short bytes (a connection the server cuts errors the body already).
 */
export function verifiedStream(body: ReadableStream<Uint8Array>, jobId: string, expectedSha256: string): ReadableStream<Uint8Array> {
  const hash = createHash('sha256');
  const check = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
    flush(controller) {
      const actual = hash.digest('hex');
      if (actual !== expectedSha256.toLowerCase()) controller.error(new FetcherIntegrityError(jobId, expectedSha256, actual));
    },
  });
  return body.pipeThrough(check);
}
