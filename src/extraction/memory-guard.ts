import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { Scheduler } from '../common/clock/scheduler.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { JobLogFields } from '../job/job-log-fields.js';
import { ExtractionError } from '../engine/errors/engine-errors.js';

/** How often the resident size is read; process.memoryUsage.rss() is a cheap syscall. */
const SAMPLE_MS = 250;
/** After one job is failed for memory, others get this long for the collector to reclaim it. */
const VICTIM_COOLDOWN_MS = 2_000;
const RESUME_POLL_MS = 250;

/** Reads the process's resident size in bytes; replaced in tests to simulate memory pressure. */
export const RSS_SAMPLER = Symbol('RSS_SAMPLER');
export type RssSampler = () => number;
export const processRss: RssSampler = () => process.memoryUsage.rss();

/**
 * A worker-wide memory ceiling (WORKER_MAX_RSS_MB). Above it the worker claims no new job, and the
 * first running job that reads a batch fails with FET-1107 — one job per cooldown, so one huge
 * extraction is stopped instead of the process running out of memory and taking every job with it.
 */
@Injectable()
export class MemoryGuard {
  private readonly logger = new Logger(MemoryGuard.name);
  private readonly limitBytes: number;
  private lastVictimAt = 0;
  private sampledAt = 0;
  private rss = 0;

  constructor(
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'worker'>,
    @Inject(RSS_SAMPLER) private readonly sampleRss: RssSampler,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
  ) {
    this.limitBytes = config.worker.maxRssBytes;
  }

  get enabled(): boolean {
    return this.limitBytes > 0;
  }

  overLimit(): boolean {
    if (!this.enabled) return false;
    const now = this.clock.nowMs();
    if (now - this.sampledAt >= SAMPLE_MS) {
      this.rss = this.sampleRss();
      this.sampledAt = now;
    }
    return this.rss > this.limitBytes;
  }

  /** Called by a running job between batches: throws for the job chosen to give its memory back. */
  check(jobId: string, log: JobLogFields = { jobId }): void {
    if (!this.overLimit()) return;
    const now = this.clock.nowMs();
    if (now - this.lastVictimAt < VICTIM_COOLDOWN_MS) return;
    this.lastVictimAt = now;
    const mib = (bytes: number) => Math.round(bytes / (1024 * 1024));
    this.logger.warn(`worker memory ${mib(this.rss)} MiB is above WORKER_MAX_RSS_MB=${mib(this.limitBytes)}: failing job ${jobId}`, {
      ...log,
      rssMiB: mib(this.rss),
      limitMiB: mib(this.limitBytes),
    });
    throw new ExtractionError(
      FetCode.WorkerMemoryExceeded,
      `the worker ran out of memory headroom (${mib(this.rss)} MiB resident, limit ${mib(this.limitBytes)} MiB) while this job was running; nothing was stored`,
    );
  }

  /** Resolves once the worker is back under its limit (at once when it is), or when `signal` aborts. */
  async waitForHeadroom(signal: AbortSignal): Promise<void> {
    if (!this.overLimit()) return;
    this.logger.warn('worker memory is above its limit: not taking new jobs until it falls');
    while (this.overLimit() && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const onAbort = () => (cancel(), resolve());
        // Each poll takes its abort listener back: polls may go on for hours on one shutdown signal.
        const cancel = this.scheduler.delay(RESUME_POLL_MS, async () => (signal.removeEventListener('abort', onAbort), resolve()));
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }
}
