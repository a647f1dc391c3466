import type { JobRecord } from './job.entity.js';
import { JobStatus } from './job-status.js';

/** What a submission decides of its job; the rest of a new job's row is the same for every job. */
export type SubmittedJob = Pick<JobRecord, 'id' | 'requestHash' | 'productName' | 'metadata' | 'mappedFields'> & Partial<JobRecord>;

/**
 * A job as submitted at `at` and not yet claimed: pending, never started, without limits, result,
 * error or progress, its dedup key its request hash. What `submitted` names wins.
 */
export function pendingJob(submitted: SubmittedJob, at: Date): JobRecord {
  return {
    status: JobStatus.Pending,
    dedupKey: submitted.requestHash,
    filters: null,
    limits: null,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    completedAt: null,
    attempts: 0,
    workerId: null,
    leaseExpiresAt: null,
    resultPath: null,
    resultHmac: null,
    resultSha256: null,
    resultSizeBytes: null,
    resultRowCount: null,
    resultRowCounts: null,
    resultKeyVersion: null,
    resultParts: null,
    error: null,
    progress: null,
    resultDeleteRequestedAt: null,
    resultDeletedAt: null,
    ...submitted,
  };
}
