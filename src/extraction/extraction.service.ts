import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import { FetCode } from '../common/errors/fet-code.js';
import { FetcherError } from '../common/errors/fetcher.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { effectiveLimits } from '../request/data-request.validator.js';
import type { JobErrorInfo, JobRecord } from '../job/job.entity.js';
import { JobRepository, type JobClaim } from '../job/job.repository.js';
import { completedEvent, failedEvent } from '../job/terminal-events.js';
import { ResultStorageService, type ResultSink } from '../storage/result-storage.service.js';
import { executePlan } from './extraction-executor.js';
import type { ExtractionPlan } from './extraction-plan.js';
import { ExtractionPlanner } from './extraction-planner.service.js';
import { JobLease } from './job-lease.js';
import { JobProgressTracker } from './job-progress.js';
import { MemoryGuard } from './memory-guard.js';

export type ExtractionOutcome = 'completed' | 'failed' | 'skipped' | 'released' | 'lost';

/**
 * Runs one job: claim → plan → stream to the attempt's own object → commit. The commit is one
 * conditional update for this very claim (worker and attempt), and the attempt's object becomes
 * `external-data/<jobId>.json` inside it; a worker that lost its lease meanwhile stores nothing.
 */
@Injectable()
export class ExtractionService {
  private readonly logger = new Logger(ExtractionService.name);
  readonly workerId: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRepository,
    private readonly planner: ExtractionPlanner,
    private readonly storage: ResultStorageService,
    private readonly memory: MemoryGuard,
    private readonly clock: Clock,
    ids: IdGenerator,
  ) {
    this.workerId = ids.processTag();
  }

  /** Throws only when the job store itself fails; the job is then recovered by the sweep. */
  async process(jobId: string, shutdown: AbortSignal): Promise<ExtractionOutcome> {
    const { leaseMs } = this.config.leases;
    if (!(await this.jobs.claim(jobId, this.workerId, leaseMs))) return 'skipped';
    const job = (await this.jobs.findById(jobId)) as JobRecord;
    const claim: JobClaim = { workerId: this.workerId, attempt: job.attempts };
    const started = this.clock.nowMs();
    const limits = effectiveLimits(this.config.extraction, job.limits);
    // One deadline for the whole job, planning included.
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    let progress: JobProgressTracker | undefined;
    const lease = new JobLease(this.jobs, jobId, this.workerId, leaseMs, () => progress?.snapshot());
    const signal = AbortSignal.any([timeout, shutdown, lease.signal]);

    let plan: ExtractionPlan | undefined;
    let sink: ResultSink | undefined;
    try {
      plan = await this.planner.plan(job, signal);
      progress = new JobProgressTracker(plan, job.startedAt ?? new Date(started), () => this.clock.now());
      sink = await this.storage.openSink(jobId, limits.maxResultBytes, claim);
      const stats = await executePlan(plan, sink, signal, { memoryCheck: () => this.memory.check(jobId), progress });
      signal.throwIfAborted();
      const sealed = await sink.finish();
      // Last check before the commit: a worker whose lease ran out does not even try.
      if (!(await lease.confirm())) signal.throwIfAborted();
      const completedAt = this.clock.now();
      const result = {
        resultPath: sealed.path,
        resultHmac: sealed.hmac,
        resultKeyVersion: sealed.keyVersion,
        resultSha256: sealed.sha256,
        resultSizeBytes: sealed.sizeBytes,
        resultRowCount: stats.rowCount,
        resultRowCounts: stats.rowCounts,
      };
      const event = completedEvent(job, result, completedAt.getTime() - started, completedAt);
      const publishing = sink;
      if (!(await this.jobs.complete(jobId, claim, result, event, () => publishing.publish(), progress.snapshot()))) {
        await sink.abort();
        this.logger.warn(`job ${jobId} finished here but is no longer held by this claim; nothing was stored`);
        return 'lost';
      }
      this.logger.log(`job ${jobId} completed: ${stats.rowCount} rows, ${sealed.sizeBytes} bytes in ${this.clock.nowMs() - started} ms`);
      return 'completed';
    } catch (error) {
      await sink?.abort();
      if (lease.signal.aborted) {
        if (await this.wasCancelled(jobId)) this.logger.log(`job ${jobId} was cancelled: stopped, nothing stored`);
        else this.logger.warn(`job ${jobId} stopped and stored nothing: ${(lease.signal.reason as Error).message}`);
        return 'lost';
      }
      if (shutdown.aborted && !timeout.aborted) {
        await this.jobs.release(jobId, this.workerId, 'worker shutting down');
        this.logger.warn(`job ${jobId} handed back to pending: worker is shutting down`);
        return 'released';
      }
      const info = describeFailure(error, timeout.aborted, limits.timeoutMs);
      if (info.code === FetCode.Internal)
        this.logger.error(`job ${jobId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await this.jobs.fail(jobId, info, failedEvent(job, info), { workerId: this.workerId, attempt: claim.attempt });
      this.logger.warn(`job ${jobId} failed: ${info.code} ${info.message}`);
      return 'failed';
    } finally {
      lease.stop();
      await Promise.allSettled((plan?.datasources ?? []).map((datasource) => datasource.session.close()));
    }
  }

  private async wasCancelled(jobId: string): Promise<boolean> {
    const current = await this.jobs.findById(jobId).catch(() => null);
    return current?.error?.code === FetCode.ExtractionCancelled;
  }
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): JobErrorInfo {
  if (timedOut) {
    return { code: FetCode.ExtractionTimeout, message: `extraction exceeded its timeout of ${timeoutMs} ms; nothing was stored` };
  }
  if (error instanceof FetcherError) {
    return error.details && error.details.length > 0
      ? { code: error.code, message: error.message, details: [...error.details] }
      : { code: error.code, message: error.message };
  }
  return { code: FetCode.Internal, message: 'internal error during extraction; nothing was stored' };
}
