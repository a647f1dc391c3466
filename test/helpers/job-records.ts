import { v7 as uuidv7 } from 'uuid';
import type { JobRecord } from '../../src/job/job.entity.js';
import { pendingJob } from '../../src/job/pending-job.js';

/** What a test says of its job; everything else is a job as submitted. */
export type JobFields = Pick<JobRecord, 'productName' | 'metadata' | 'mappedFields'> & Partial<JobRecord>;

/**
 * A job as submitted and not yet claimed, for a test to insert into the store (the row JobService
 * builds): under an id and request hash of its own unless `fields` names them.
 */
export function pendingJobRecord(fields: JobFields, hash = uuidv7()): JobRecord {
  return pendingJob({ id: uuidv7(), requestHash: hash, dedupKey: hash, ...fields }, new Date());
}
