import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';

/** Incremental streams: not found, busy with a job, marks moved under a running job. */
export class StreamError extends FetcherError {}

/** 404 FET-1001 in the original's wording (docs/compatibility.md#error-codes); also what another product's stream answers. */
export function streamNotFound(): StreamError {
  return new StreamError(
    FetCode.NotFound,
    'It was not possible to find the stream entity during the requested flow. Please review the data provided in the request.',
  );
}

/** 409 FET-1111: one job of a stream at a time. `jobId` lets the caller find the job to wait for or cancel. */
export function streamBusy(stream: string, job: { readonly id: string; readonly status: string }): StreamError {
  return new StreamError(FetCode.StreamBusy, `stream '${stream}' has job ${job.id} ${job.status}; wait for it or cancel it`, {
    extra: { jobId: job.id },
  });
}

/**
 * FET-1112, as the error of a job that read its ranges from marks the stream no longer holds (a PUT
 * or DELETE while it ran): committing would overwrite them, so nothing is stored.
 */
export function marksMoved(stream: string, table: string): StreamError {
  return new StreamError(
    FetCode.StreamMarksMoved,
    `the marks of stream '${stream}' changed while the job ran (${table}): nothing was stored; submit the job again to read from the new marks`,
  );
}
