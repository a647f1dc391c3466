import type { JobRecord } from './job.entity.js';
import type { JobStatus } from './job-status.js';

/** What a transition requires of the job row, checked on the locked row and repeated in the UPDATE. */
export interface TransitionGuard {
  readonly from: readonly JobStatus[];
  readonly workerId?: string;
  /** Only while the job is still on this attempt (with `workerId`: this very claim). */
  readonly attempt?: number;
  /** Only when the lease ran out before this instant. */
  readonly leaseExpiredBefore?: Date;
  /** Only while the lease still runs at this instant: a claim whose lease ran out commits nothing. */
  readonly leaseLiveAt?: Date;
}

export function guardHolds(guard: TransitionGuard, job: Pick<JobRecord, 'status' | 'workerId' | 'attempts' | 'leaseExpiresAt'>): boolean {
  if (!guard.from.includes(job.status)) return false;
  if (guard.workerId !== undefined && job.workerId !== guard.workerId) return false;
  if (guard.attempt !== undefined && job.attempts !== guard.attempt) return false;
  if (guard.leaseLiveAt && (job.leaseExpiresAt === null || job.leaseExpiresAt <= guard.leaseLiveAt)) return false;
  return !guard.leaseExpiredBefore || (job.leaseExpiresAt !== null && job.leaseExpiresAt < guard.leaseExpiredBefore);
}
