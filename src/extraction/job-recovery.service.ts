import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import type { PeriodicTask } from '../common/clock/periodic-task.js';
import { Scheduler } from '../common/clock/scheduler.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JobRepository } from '../job/job.repository.js';
import { JOB_QUEUE, type JobQueue } from '../job/queue/job-queue.port.js';
import { failedEvent } from '../job/terminal-events.js';
import type { JobRecord } from '../job/job.entity.js';
import { jobLogFields } from '../job/job-log-fields.js';
import { ResultStorageService } from '../storage/result-storage.service.js';

const BATCH = 100;

/**
 * No job stays processing or pending forever: a processing job whose lease ran out (its worker
 * died or lost the job store) goes back to pending and is re-queued, or fails once it has used all
 * its attempts; a pending job nobody picked up for a lease period is queued again (enqueue is
 * idempotent, so a job still waiting in the queue is not duplicated). Every worker runs the sweep;
 * each change is conditional, so two sweeps never both act on one job. Orphans are decided by lease
 * expiry alone, in every queue mode: a process that starts cannot tell a dead worker's job from one
 * another live process (sharing the store without Redis) is running.
 */
@Injectable()
export class JobRecovery {
  private readonly logger = new Logger(JobRecovery.name);
  private readonly loop: PeriodicTask;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRepository,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    private readonly storage: ResultStorageService,
    private readonly clock: Clock,
    scheduler: Scheduler,
  ) {
    this.loop = scheduler.every(() => this.sweep(this.clock.now()), {
      intervalMs: config.leases.recoveryIntervalMs,
      onError: (error) => this.logger.warn(`recovery sweep failed: ${String(error)}`),
    });
  }

  /** Sweeps once (resolving when that sweep has ended), then every JOB_RECOVERY_INTERVAL_MS. */
  start(): Promise<void> {
    return this.loop.startWithPass();
  }

  /** Cancels the next sweep and waits for one in progress. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A dead worker may have finished its attempt's upload; that object will never be committed. */
  private async discardAttempt(job: JobRecord): Promise<void> {
    if (job.workerId) await this.storage.discardAttempt(job.id, { attempt: job.attempts, workerId: job.workerId });
  }

  /** `expiredBefore`: leases that ran out before this instant are recovered. */
  async sweep(expiredBefore: Date): Promise<void> {
    const { maxAttempts, leaseMs } = this.config.leases;
    for (const job of await this.jobs.findExpiredLeases(expiredBefore, BATCH)) {
      if (job.attempts >= maxAttempts) {
        const error = {
          code: FetCode.JobAbandoned,
          message: `the job was abandoned: its worker stopped responding ${job.attempts} times (the limit is ${maxAttempts} attempts); nothing was stored`,
        };
        if (
          await this.jobs.fail(job.id, error, failedEvent(job, error), {
            workerId: job.workerId ?? undefined,
            leaseExpiredBefore: expiredBefore,
          })
        ) {
          this.logger.warn(`job ${job.id} failed after ${job.attempts} abandoned attempts`, jobLogFields(job));
          await this.discardAttempt(job);
        }
      } else if (await this.jobs.requeueExpired(job, expiredBefore)) {
        this.logger.warn(`job ${job.id}: worker ${job.workerId} lost its lease; re-queued (attempt ${job.attempts} of ${maxAttempts})`, {
          ...jobLogFields(job),
          workerId: job.workerId,
        });
        await this.discardAttempt(job);
        await this.queue.enqueue(job.id, `r${job.attempts}`);
      }
    }
    for (const job of await this.jobs.findStalePending(new Date(this.clock.nowMs() - leaseMs), BATCH)) {
      await this.queue.enqueue(job.id);
      await this.jobs.touchPending(job.id);
    }
  }
}
