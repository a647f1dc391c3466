import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import { Scheduler } from '../common/clock/scheduler.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';
import { isStoreError } from '../persistence/store-error.js';
import { ATTR, SPAN } from '../engine/tracing/span-names.js';
import { Tracing } from '../common/tracing/tracing.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { JobErrorInfo, JobIncremental, JobRecord } from '../job/job.entity.js';
import { JobRepository, type CompletionStep, type JobClaim } from '../job/job.repository.js';
import { jobLogFields } from '../job/job-log-fields.js';
import { outputOf } from '../job/job-output.js';
import { completedEvent, failedEvent } from '../job/terminal-events.js';
import { isPerTable } from '../engine/formats/output-format.js';
import { ResultStorageService, type StagedResult } from '../storage/result-storage.service.js';
import { Metrics } from '../common/metrics/metrics.port.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { Engine } from '../engine/engine.js';
import type { ExtractResult, ProgressEvent } from '../engine/extract-request.js';
import type { IncrementalRequest } from '../engine/request/incremental-request.js';
import { StreamRepository } from '../stream/stream.repository.js';
import { JobLease } from './job-lease.js';
import { JobProgressTracker } from './job-progress.js';
import { MemoryGuard } from './memory-guard.js';

export type ExtractionOutcome = 'completed' | 'failed' | 'skipped' | 'released' | 'lost';

/**
 * Runs one job: claim → the engine (plan, stream, seal into the attempt's own object) → commit. The commit is one
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
    private readonly resolver: DatasourceResolver,
    private readonly engine: Engine,
    private readonly storage: ResultStorageService,
    private readonly memory: MemoryGuard,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    ids: IdGenerator,
    private readonly streams: StreamRepository,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly tracing: Tracing = Tracing.disabled(),
  ) {
    this.workerId = ids.processTag();
    this.metrics?.workerStarted(this.workerId);
  }

  /** Throws only when the job store itself fails; the job is then recovered by the sweep. */
  async process(jobId: string, shutdown: AbortSignal): Promise<ExtractionOutcome> {
    const { leaseMs } = this.config.leases;
    const job = await this.jobs.claim(jobId, this.workerId, leaseMs);
    if (job === null) return 'skipped';
    const claim: JobClaim = { workerId: this.workerId, attempt: job.attempts };
    const log = jobLogFields(job, claim.attempt);
    this.tracing.annotate({ [ATTR.jobAttempt]: job.attempts });
    const started = this.clock.nowMs();
    let progress: JobProgressTracker | undefined;
    const lease = new JobLease(
      this.jobs,
      jobId,
      this.workerId,
      leaseMs,
      { clock: this.clock, scheduler: this.scheduler },
      () => progress?.snapshot(),
      log,
    );
    // The job's own deadline (its timeoutMs, planning included) is the engine's.
    const signal = AbortSignal.any([shutdown, lease.signal]);

    let staged: StagedResult | undefined;
    // Time in queue is creation → first claim; a re-delivered job's wait is the recovery's, not the queue's.
    this.metrics?.jobClaimed(this.workerId, job.attempts === 1 ? started - job.createdAt.getTime() : undefined);
    try {
      // The connections recorded at submission, by id and checked against the job's product again.
      const datasources = await fromStore(
        this.jobs.datasourcesOf(jobId).then((recorded) => this.resolver.resolveRecorded(recorded, job.productName)),
      );
      staged = this.storage.stageResult(jobId, claim);
      const output = outputOf(job);
      const extracted = await this.engine.extract(
        {
          datasources: Object.fromEntries(datasources),
          dataRequest: {
            mappedFields: job.mappedFields,
            filters: job.filters ?? undefined,
            limits: job.limits ?? undefined,
            ...(job.incremental ? { incremental: requestOf(job.incremental) } : {}),
          },
          // Every attempt (a retry after a lost lease, a hand-back) starts from the marks read at submission.
          ...(job.incremental ? { marks: job.incremental.from } : {}),
          output: { seal: staged.keys, format: output.format, compression: output.compression },
          signal,
          checkpoint: () => this.memory.check(jobId, log),
          onProgress: (event) => {
            if (event.type === 'planned') progress = new JobProgressTracker(event.tables, job.startedAt ?? new Date(started), this.clock);
            progress?.record(event);
            this.countThroughput(event);
          },
        },
        // A per-table result: one upload per table and the manifest, which takes the one object's place.
        isPerTable(output) ? staged.parts : staged.upload,
      );
      // A lease lost meanwhile (a renewal found the job no longer ours) stops here; one that ran out
      // unnoticed is refused by the commit itself, which holds only while the lease still runs.
      signal.throwIfAborted();
      const completedAt = this.clock.now();
      const result = {
        completedAt,
        resultPath: staged.path,
        resultHmac: extracted.hmac as string,
        resultKeyVersion: staged.keyVersion,
        resultSha256: extracted.sha256,
        resultSizeBytes: extracted.sizeBytes,
        resultRowCount: extracted.rowCount,
        resultRowCounts: extracted.rowCounts,
        // What the manifest lists, without the bytes a sink-less extraction would carry.
        ...(extracted.parts ? { resultParts: extracted.parts.map(({ bytes: _bytes, ...part }) => part) } : {}),
        ...(job.incremental && extracted.incremental ? { incremental: { ...job.incremental, tables: extracted.incremental.tables } } : {}),
      };
      const event = completedEvent(job, result, completedAt.getTime() - started, completedAt);
      const publishing = staged;
      // Bound here: the store calls it from inside its transaction, which must not decide its parent span.
      const publish = this.tracing.bind(() => this.tracing.inSpan(SPAN.publish, {}, () => publishing.publish()));
      const committed = await fromStore(
        this.jobs.complete(jobId, claim, result, event, publish, progress?.snapshot(), this.commitMarks(job, extracted)),
      );
      if (!committed) {
        await staged.abort();
        if (await this.wasCancelled(jobId)) this.logger.log(`job ${jobId} was cancelled: stopped, nothing stored`, log);
        else
          this.logger.warn(
            `job ${jobId} finished here but is no longer held by this claim (or its lease ran out); nothing was stored`,
            log,
          );
        return 'lost';
      }
      const durationMs = this.clock.nowMs() - started;
      this.logger.log(`job ${jobId} completed: ${extracted.rowCount} rows, ${extracted.sizeBytes} bytes in ${durationMs} ms`, {
        ...log,
        rows: extracted.rowCount,
        bytes: extracted.sizeBytes,
        durationMs,
      });
      return 'completed';
    } catch (error) {
      await staged?.abort();
      if (lease.signal.aborted) {
        if (await this.wasCancelled(jobId)) this.logger.log(`job ${jobId} was cancelled: stopped, nothing stored`, log);
        else this.logger.warn(`job ${jobId} stopped and stored nothing: ${(lease.signal.reason as Error).message}`, log);
        return 'lost';
      }
      if (error instanceof JobStoreFailure) {
        // Not the job's failure, and nothing this claim can record: the job stays processing until
        // its lease runs out, and the recovery sweep hands it on.
        this.logger.warn(
          `job ${jobId} stopped and stored nothing: the job store failed (${error.message}); it is retried once its lease runs out`,
          log,
        );
        return 'lost';
      }
      if (shutdown.aborted && !timedOut(error)) {
        await this.jobs.release(jobId, this.workerId, 'worker shutting down');
        this.logger.warn(`job ${jobId} handed back to pending: worker is shutting down`, log);
        return 'released';
      }
      const info = describeFailure(error);
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
    }
  }

  /**
   * A stream's new marks, committed in the transaction that completes the job and only while the
   * stream still holds the marks the job started from (FET-1112 otherwise: the job fails, nothing is
   * stored). A job that fails, is cancelled or times out never gets here, so it moves no mark.
   */
  private commitMarks(job: JobRecord, extracted: ExtractResult): CompletionStep | undefined {
    const { incremental, streamName, productName } = job;
    if (!incremental || !extracted.incremental) return undefined;
    const commit = {
      productName: productName ?? '',
      stream: streamName ?? incremental.stream,
      jobId: job.id,
      from: incremental.from,
      outcome: extracted.incremental,
    };
    return (manager) => this.streams.commitMarks(manager, commit, this.clock.now());
  }

  /** Rows and result bytes per datasource engine, as the engine reports them. */
  private countThroughput(event: ProgressEvent): void {
    if (event.type === 'rows') this.metrics?.throughput.rows(event.engine, event.rows);
    else if (event.type === 'bytes' && event.engine !== undefined) this.metrics?.throughput.bytes(event.engine, event.bytes);
  }

  private async wasCancelled(jobId: string): Promise<boolean> {
    const current = await this.jobs.findById(jobId).catch(() => null);
    return current?.error?.code === FetCode.ExtractionCancelled;
  }
}

/** `dataRequest.incremental` as it was submitted, without what the job recorded beside it. */
function requestOf(recorded: JobIncremental): IncrementalRequest {
  const { from: _from, tables: _tables, ...request } = recorded;
  return request;
}

/** The job store failed under a job (unreachable, a connection gone mid-transaction). */
class JobStoreFailure extends Error {
  override readonly name = 'JobStoreFailure';
}

/**
 * `work` on the job store, the store's own failures marked as such: every other error (a refused
 * commit, a gone connection record, a bug) stays itself.
 */
async function fromStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isStoreError(error)) throw error;
    throw new JobStoreFailure((error as Error).message, { cause: error });
  }
}

const timedOut = (error: unknown): boolean => error instanceof FetcherError && error.code === FetCode.ExtractionTimeout;

function describeFailure(error: unknown): JobErrorInfo {
  if (error instanceof FetcherError) {
    return error.details && error.details.length > 0
      ? { code: error.code, message: error.message, details: [...error.details] }
      : { code: error.code, message: error.message };
  }
  return { code: FetCode.Internal, message: 'internal error during extraction; nothing was stored' };
}
