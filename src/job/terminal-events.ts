import type { JobErrorInfo, JobRecord } from './job.entity.js';
import { isDefaultOutput, outputOf } from './job-output.js';
import type { CompletedResult, TerminalEvent } from './job.repository.js';
import { JobIncrementalDto } from './dto/job-incremental.dto.js';

/**
 * `job.completed` with the original's payload (docs/compatibility.md#terminal-events, docs/job-lifecycle.md, "Terminal events"); the id is
 * stable across re-sends. A job of the default output gets exactly the original's payload; another
 * output adds `output` and `result.format` says it, and a per-table result lists `result.parts`
 * (`path` and the digests are then the manifest's). A job of a stream adds `incremental`, the
 * ranges it read, as the job shows them.
 */
export function completedEvent(job: JobRecord, result: CompletedResult, executionTimeMs: number, completedAt: Date): TerminalEvent {
  const output = outputOf(job);
  const standard = isDefaultOutput(output);
  return {
    id: `fetcher.job.completed.${job.id}`,
    eventType: 'job.completed',
    payload: {
      jobId: job.id,
      metadata: job.metadata,
      status: 'completed',
      result: {
        path: result.resultPath,
        sizeBytes: result.resultSizeBytes,
        rowCount: result.resultRowCount,
        format: output.format,
        hmac: result.resultHmac,
        integrity: { algorithm: 'HMAC-SHA256', signature: result.resultHmac },
        protection: { encrypted: true, mode: 'adapter-managed', appliedBy: 'adapter' },
        ...(result.resultParts ? { parts: result.resultParts } : {}),
      },
      ...(standard ? {} : { output }),
      ...(result.incremental ? { incremental: JobIncrementalDto.from(result.incremental) } : {}),
      executionTimeMs,
      completedAt: completedAt.toISOString(),
    },
  };
}

/** `job.failed`: the request metadata with `error: {message}` (the original's shape, docs/compatibility.md#terminal-events). */
export function failedEvent(job: Pick<JobRecord, 'id' | 'metadata'>, error: JobErrorInfo): TerminalEvent {
  return {
    id: `fetcher.job.failed.${job.id}`,
    eventType: 'job.failed',
    payload: {
      jobId: job.id,
      metadata: { ...job.metadata, error: { code: error.code, message: error.message } },
      status: 'failed',
    },
  };
}
