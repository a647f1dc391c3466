import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../../common/clock/clock.js';
import type { PeriodicTask } from '../../common/clock/periodic-task.js';
import { Scheduler } from '../../common/clock/scheduler.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { jobLogFields } from '../job-log-fields.js';
import { ResultDeletionService } from './result-deletion.service.js';
import { ResultRetentionRepository } from './result-retention.repository.js';

const BATCH = 100;

/**
 * Deletes results past RESULT_RETENTION_SECONDS, and finishes every deletion a crash interrupted
 * (retention or not). Every manager may run it: each step is conditional or idempotent, so two
 * sweeps on one job only delete a missing object twice.
 */
@Injectable()
export class ResultRetentionSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ResultRetentionSweep.name);
  private readonly loop: PeriodicTask;
  private running: Promise<number> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly retention: ResultRetentionRepository,
    private readonly deletion: ResultDeletionService,
    private readonly clock: Clock,
    scheduler: Scheduler,
  ) {
    // Unref'd: waiting for the next sweep never keeps the process alive; what one leaves undone, the next (in any process) finishes.
    this.loop = scheduler.every(() => this.sweep(), {
      intervalMs: config.results.sweepIntervalMs,
      unref: true,
      onError: (error) => this.logger.warn(`result retention sweep failed: ${String(error)}`),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.running?.catch(() => undefined);
  }

  /** One pass (concurrent calls share it); resolves to the number of results deleted. */
  sweep(now = this.clock.now()): Promise<number> {
    this.running ??= this.deleteDue(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async deleteDue(now: Date): Promise<number> {
    const { retentionSeconds } = this.config.results;
    const completedBefore = retentionSeconds === null ? null : new Date(now.getTime() - retentionSeconds * 1000);
    let deleted = 0;
    for (;;) {
      const due = await this.retention.findResultsToDelete(completedBefore, BATCH);
      let failed = 0;
      for (const job of due) {
        try {
          await this.deletion.delete(job);
          deleted += 1;
        } catch (error) {
          failed += 1;
          this.logger.warn(`result of job ${job.id} could not be deleted yet: ${String(error)}`, jobLogFields(job));
        }
      }
      // A short batch was the last; a batch of failures waits for the next pass rather than spin.
      if (due.length < BATCH || failed > 0 || !this.loop.active) break;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} result(s) past retention or left half-deleted`);
    return deleted;
  }
}
