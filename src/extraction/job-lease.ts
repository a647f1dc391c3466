import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock/clock.js';
import type { Scheduler } from '../common/clock/scheduler.js';
import type { JobProgress } from '../job/job.entity.js';
import type { JobLogFields } from '../job/job-log-fields.js';
import type { JobRepository } from '../job/job.repository.js';

/**
 * Renewals come at least once a second whatever the lease length: they carry the job's progress,
 * and a renewal that finds the job no longer ours is how a cancel reaches the worker, in ≤ 1 s.
 */
const MAX_RENEWAL_INTERVAL_MS = 1_000;

/** Where a lease reads the time and its renewal timer: the process's clock and scheduler, or a spec's manual ones. */
export interface LeaseTiming {
  readonly clock: Clock;
  readonly scheduler: Scheduler;
}

/**
 * Keeps one claimed job's lease alive while its worker runs it, and says when it is gone. The lease
 * is lost when the store answers that the job is no longer ours, or when no renewal has succeeded
 * for a whole lease period (the store was unreachable): by then the sweep of another worker may
 * have handed the job to someone else, so this worker must stop and store nothing. A job cancelled
 * through the API is no longer ours either: the next renewal stops the worker.
 */
export class JobLease {
  private readonly logger = new Logger(JobLease.name);
  private readonly lost = new AbortController();
  private readonly stopTicking: () => void;
  private readonly clock: Clock;
  private renewedAt: number;
  private inFlight = false;

  constructor(
    private readonly jobs: JobRepository,
    private readonly jobId: string,
    private readonly workerId: string,
    private readonly leaseMs: number,
    timing: LeaseTiming,
    /** The progress written with each renewal. */
    private readonly progress: () => JobProgress | undefined = () => undefined,
    /** The fields of its log lines: the job, this attempt, its datasource. */
    private readonly log: JobLogFields = { jobId },
  ) {
    this.clock = timing.clock;
    this.renewedAt = this.clock.nowMs();
    const intervalMs = Math.min(MAX_RENEWAL_INTERVAL_MS, Math.max(250, Math.floor(leaseMs / 4)));
    this.stopTicking = timing.scheduler.repeat(intervalMs, () => this.tick());
  }

  /** Aborts (with the reason) once the lease is lost. */
  get signal(): AbortSignal {
    return this.lost.signal;
  }

  stop(): void {
    this.stopTicking();
  }

  private tick(): void {
    if (this.clock.nowMs() - this.renewedAt >= this.leaseMs) {
      this.markLost(`no lease renewal succeeded for ${this.leaseMs} ms`);
      return;
    }
    // A renewal stuck on an unreachable store must not pile up more behind it.
    if (this.inFlight) return;
    this.inFlight = true;
    this.jobs
      .renewLease(this.jobId, this.workerId, this.leaseMs, this.progress())
      .then(
        (held) => {
          if (held) this.renewedAt = this.clock.nowMs();
          else this.markLost('the job is no longer held by this worker');
        },
        (error: unknown) => this.logger.warn(`lease renewal of ${this.jobId} failed: ${String(error)}`, this.log),
      )
      .finally(() => {
        this.inFlight = false;
      });
  }

  private markLost(why: string): void {
    if (this.lost.signal.aborted) return;
    this.stop();
    this.lost.abort(new Error(`the job lease was lost: ${why}`));
  }
}
