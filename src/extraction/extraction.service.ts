import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../common/errors/fetcher.error.js';
import { ATTR, SPAN } from '../engine/tracing/span-names.js';
import { Tracing } from '../common/tracing/tracing.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { effectiveLimits } from '../engine/request/data-request.validator.js';
import type { JobErrorInfo, JobRecord } from '../job/job.entity.js';
import { JobRepository, type JobClaim } from '../job/job.repository.js';
import { jobLogFields } from '../job/job-log-fields.js';
import { completedEvent, failedEvent } from '../job/terminal-events.js';
import { ResultStorageService, type ResultSink } from '../storage/result-storage.service.js';
import { MetricsService } from '../system/metrics.service.js';
import { executePlan } from '../engine/executor/extraction-executor.js';
import type { ExtractionPlan } from '../engine/executor/extraction-plan.js';
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
    @Optional() private readonly metrics?: MetricsService,
    @Optional() private readonly tracing: Tracing = Tracing.disabled(),
  ) {
    this.workerId = ids.processTag();
    this.metrics?.workerStarted(this.workerId);
  }

  /** Throws only when the job store itself fails; the job is then recovered by the sweep. */
  async process(jobId: string, shutdown: AbortSignal): Promise<ExtractionOutcome> {
    const { leaseMs } = this.config.leases;
    if (!(await this.jobs.claim(jobId, this.workerId, leaseMs))) return 'skipped';
    const job = (await this.jobs.findById(jobId)) as JobRecord;
    const claim: JobClaim = { workerId: this.workerId, attempt: job.attempts };
    const log = jobLogFields(job, claim.attempt);
    this.tracing.annotate({ [ATTR.jobAttempt]: job.attempts });
    const started = this.clock.nowMs();
    const limits = effectiveLimits(this.config.extraction, job.limits);
    // One deadline for the whole job, planning included.
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    let progress: JobProgressTracker | undefined;
    const lease = new JobLease(this.jobs, jobId, this.workerId, leaseMs, () => progress?.snapshot(), log);
    const signal = AbortSignal.any([timeout, shutdown, lease.signal]);

    let plan: ExtractionPlan | undefined;
    let sink: ResultSink | undefined;
    // Time in queue is creation → first claim; a re-delivered job's wait is the recovery's, not the queue's.
    this.metrics?.jobClaimed(this.workerId, job.attempts === 1 ? started - job.createdAt.getTime() : undefined);
    try {
      plan = await this.planner.plan(job, signal);
      progress = new JobProgressTracker(plan, job.startedAt ?? new Date(started), () => this.clock.now());
      sink = await this.storage.openSink(jobId, limits.maxResultBytes, claim);
      const stats = await executePlan(plan, sink, signal, {
        memoryCheck: () => this.memory.check(jobId, log),
        progress,
        throughput: this.metrics?.throughput,
        tracing: this.tracing,
      });
      signal.throwIfAborted();
      const sealing = sink;
      const sealed = await this.tracing.inSpan(SPAN.seal, {}, async (span) => {
        const stored = await sealing.finish();
        span.setAttribute(ATTR.resultBytes, stored.sizeBytes);
        return stored;
      });
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
      // Bound here: the store calls it from inside its transaction, which must not decide its parent span.
      const publish = this.tracing.bind(() => this.tracing.inSpan(SPAN.publish, {}, () => publishing.publish()));
      if (!(await this.jobs.complete(jobId, claim, result, event, publish, progress.snapshot()))) {
        await sink.abort();
        this.logger.warn(`job ${jobId} finished here but is no longer held by this claim; nothing was stored`, log);
        return 'lost';
      }
      const durationMs = this.clock.nowMs() - started;
      this.logger.log(`job ${jobId} completed: ${stats.rowCount} rows, ${sealed.sizeBytes} bytes in ${durationMs} ms`, {
        ...log,
        rows: stats.rowCount,
        bytes: sealed.sizeBytes,
        durationMs,
      });
      return 'completed';
    } catch (error) {
      await sink?.abort();
      if (lease.signal.aborted) {
        if (await this.wasCancelled(jobId)) this.logger.log(`job ${jobId} was cancelled: stopped, nothing stored`, log);
        else this.logger.warn(`job ${jobId} stopped and stored nothing: ${(lease.signal.reason as Error).message}`, log);
        return 'lost';
      }
      if (shutdown.aborted && !timeout.aborted) {
        await this.jobs.release(jobId, this.workerId, 'worker shutting down');
        this.logger.warn(`job ${jobId} handed back to pending: worker is shutting down`, log);
        return 'released';
      }
      const info = describeFailure(error, timeout.aborted, limits.timeoutMs);
      if (info.code === FetCode.Internal)
        this.logger.error(`job ${jobId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, log);
      await this.jobs.fail(jobId, info, failedEvent(job, info), { workerId: this.workerId, attempt: claim.attempt });
      this.tracing.failActive(`${info.code}: ${info.message}`, { [ATTR.errorCode]: info.code });
      this.metrics?.jobFailed(info.code);
      this.logger.warn(`job ${jobId} failed: ${info.code} ${info.message}`, { ...log, code: info.code });
      return 'failed';
    } finally {
      this.metrics?.jobClaimEnded(this.workerId);
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
