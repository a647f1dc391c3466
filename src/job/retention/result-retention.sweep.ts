import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
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
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = true;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly retention: ResultRetentionRepository,
    private readonly deletion: ResultDeletionService,
  ) {}

  onApplicationBootstrap(): void {
    this.stopped = false;
    const tick = () => {
      this.sweep()
        .catch((error: unknown) => this.logger.warn(`result retention sweep failed: ${String(error)}`))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.config.results.sweepIntervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass (concurrent calls share it); resolves to the number of results deleted. */
  sweep(now = new Date()): Promise<number> {
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
          this.logger.warn(`result of job ${job.id} could not be deleted yet: ${String(error)}`);
        }
      }
      // A short batch was the last; a batch of failures waits for the next pass rather than spin.
      if (due.length < BATCH || failed > 0 || this.stopped) break;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} result(s) past retention or left half-deleted`);
    return deleted;
  }
}
