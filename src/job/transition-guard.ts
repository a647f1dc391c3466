import type { EntityManager, QueryDeepPartialEntity } from 'typeorm';
import type { NewOutboxEvent } from '../events/outbox.repository.js';
import type { JobErrorInfo, JobRecord, JobTransitionRecord } from './job.entity.js';
import { JobStatus } from './job-status.js';

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

/** What JobRepository.change() does: from which states, to which, by whom and why, with which columns and event. */
export interface Transition {
  readonly guard: TransitionGuard;
  readonly to: JobStatus;
  readonly workerId: string | null;
  readonly reason: string;
  readonly columns: QueryDeepPartialEntity<JobRecord>;
  readonly event?: NewOutboxEvent;
  readonly beforeCommit?: (manager: EntityManager) => Promise<void>;
  /** Read every column under the lock (a claim hands the whole job to its worker). */
  readonly wholeRow?: boolean;
  /** The change's time (updated_at, the transition's `at`, the event's); the clock's when not given. */
  readonly at?: Date;
}

/**
 * A job failed at `at`: what fail() writes, and so what a caller whose fail() succeeded may show
 * without reading the row again. The dedup key is freed: the same request may run again.
 */
export function failedColumns(error: JobErrorInfo, at: Date) {
  return { status: JobStatus.Failed, error, dedupKey: null, leaseExpiresAt: null, completedAt: at, updatedAt: at } as const;
}

/** A job going back to pending: no worker, no lease, not started. */
export function releasedColumns(): QueryDeepPartialEntity<JobRecord> {
  return { workerId: null, leaseExpiresAt: null, startedAt: null };
}

/** One row of job_transitions (its id a time-ordered UUID): the history every change writes in its own transaction. */
export function transitionRow(
  id: string,
  jobId: string,
  from: JobStatus | null,
  to: JobStatus,
  workerId: string | null,
  reason: string,
  at: Date,
): JobTransitionRecord {
  return { id, jobId, fromStatus: from, toStatus: to, workerId, reason: reason.slice(0, 255), at };
}
