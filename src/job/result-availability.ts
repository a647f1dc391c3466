import type { JobRecord } from './job.entity.js';
import { JobStatus } from './job-status.js';

export type ResultAvailability = 'available' | 'not-completed' | 'deleted';

/**
 * Whether a job's result can be downloaded. A result whose deletion was asked for, or whose
 * retention ran out, is gone for consumers from that moment, even before the sweep removed the
 * object: the answer must not depend on when the sweep last ran.
 */
export function resultAvailability(job: JobRecord, retentionSeconds: number | null, now: Date): ResultAvailability {
  if (job.status !== JobStatus.Completed || !job.resultPath) return 'not-completed';
  if (job.resultDeleteRequestedAt || job.resultDeletedAt) return 'deleted';
  if (retentionSeconds !== null && job.completedAt && job.completedAt.getTime() + retentionSeconds * 1000 <= now.getTime())
    return 'deleted';
  return 'available';
}
