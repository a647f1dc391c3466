import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { FetCode } from '../common/errors/fet-code.js';
import { FetcherError } from '../common/errors/fetcher.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { effectiveLimits } from '../job/data-request.validator.js';
import type { JobErrorInfo, JobRecord } from '../job/job.entity.js';
import { JobRepository } from '../job/job.repository.js';
import { completedEvent, failedEvent } from '../job/terminal-events.js';
import { ResultStorageService, type ResultSink } from '../storage/result-storage.service.js';
import { executePlan } from './extraction-executor.js';
import type { ExtractionPlan } from './extraction-plan.js';
import { ExtractionPlanner } from './extraction-planner.service.js';

export type ExtractionOutcome = 'completed' | 'failed' | 'skipped' | 'released' | 'lost';

/** Runs one job: claim → plan → stream to storage → record the terminal status and event. */
@Injectable()
export class ExtractionService {
  private readonly logger = new Logger(ExtractionService.name);
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRepository,
    private readonly planner: ExtractionPlanner,
    private readonly storage: ResultStorageService,
  ) {}

  /** Throws only when the job store itself fails; the job is then recovered by the sweep. */
  async process(jobId: string, shutdown: AbortSignal): Promise<ExtractionOutcome> {
    const { leaseMs } = this.config.leases;
    if (!(await this.jobs.claim(jobId, this.workerId, leaseMs))) return 'skipped';
    const job = (await this.jobs.findById(jobId)) as JobRecord;
    const started = Date.now();
    const limits = effectiveLimits(this.config.extraction, job.limits);
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const leaseLost = new AbortController();
    const signal = AbortSignal.any([timeout, shutdown, leaseLost.signal]);
    const renewal = setInterval(() => {
      this.jobs.renewLease(jobId, this.workerId, leaseMs).then(
        (held) => held || leaseLost.abort(new Error('the job lease was lost')),
        (error: unknown) => this.logger.warn(`lease renewal of ${jobId} failed: ${String(error)}`),
      );
    }, Math.max(250, Math.floor(leaseMs / 4)));

    let plan: ExtractionPlan | undefined;
    let sink: ResultSink | undefined;
    try {
      plan = await this.planner.plan(job, signal);
      sink = await this.storage.openSink(jobId, limits.maxResultBytes);
      const stats = await executePlan(plan, sink, signal);
      // Last check before the object becomes visible: a worker whose lease ran out must not publish.
      if (!(await this.jobs.renewLease(jobId, this.workerId, leaseMs))) leaseLost.abort(new Error('the job lease was lost'));
      signal.throwIfAborted();
      const sealed = await sink.finish();
      const completedAt = new Date();
      const result = {
        resultPath: sealed.path,
        resultHmac: sealed.hmac,
        resultKeyVersion: sealed.keyVersion,
        resultSha256: sealed.sha256,
        resultSizeBytes: sealed.sizeBytes,
        resultRowCount: stats.rowCount,
        resultRowCounts: stats.rowCounts,
      };
      if (!(await this.jobs.complete(jobId, this.workerId, result, completedEvent(job, result, completedAt.getTime() - started, completedAt)))) {
        this.logger.warn(`job ${jobId} finished here but is no longer held by this worker; its status was left alone`);
        return 'lost';
      }
      this.logger.log(`job ${jobId} completed: ${stats.rowCount} rows, ${sealed.sizeBytes} bytes in ${Date.now() - started} ms`);
      return 'completed';
    } catch (error) {
      await sink?.abort();
      if (leaseLost.signal.aborted) {
        this.logger.warn(`job ${jobId} stopped: its lease was lost to another worker`);
        return 'lost';
      }
      if (shutdown.aborted && !timeout.aborted) {
        await this.jobs.release(jobId, this.workerId, 'worker shutting down');
        this.logger.warn(`job ${jobId} handed back to pending: worker is shutting down`);
        return 'released';
      }
      const info = describeFailure(error, timeout.aborted, limits.timeoutMs);
      if (info.code === FetCode.Internal) this.logger.error(`job ${jobId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await this.jobs.fail(jobId, info, failedEvent(job, info), { workerId: this.workerId });
      this.logger.warn(`job ${jobId} failed: ${info.code} ${info.message}`);
      return 'failed';
    } finally {
      clearInterval(renewal);
      await Promise.allSettled((plan?.datasources ?? []).map((datasource) => datasource.session.close()));
    }
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
