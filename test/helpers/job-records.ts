import { v7 as uuidv7 } from 'uuid';
import type { JobRecord } from '../../src/job/job.entity.js';
import { JobStatus } from '../../src/job/job-status.js';

/** What a test says of its job; everything else is a job as submitted. */
export type JobFields = Pick<JobRecord, 'productName' | 'metadata' | 'mappedFields'> & Partial<JobRecord>;

/**
 * A job as submitted and not yet claimed, for a test to insert into the store: pending, never
 * started, without limits, result or error, under an id and request hash of its own unless `fields` names them.
 */
export function pendingJobRecord(fields: JobFields, hash = uuidv7()): JobRecord {
  const now = new Date();
  return {
    id: uuidv7(),
    status: JobStatus.Pending,
    requestHash: hash,
    dedupKey: hash,
    filters: null,
    limits: null,
    createdAt: now,
    updatedAt: now,
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
    error: null,
    progress: null,
    resultDeleteRequestedAt: null,
    resultDeletedAt: null,
    ...fields,
  };
}
