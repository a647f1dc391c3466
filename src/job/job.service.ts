import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AuthError } from '../auth/auth.error.js';
import { actsFor, type Principal } from '../auth/principal.js';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { ServiceUnavailableError } from '../common/errors/request-errors.js';
import { Tracing } from '../common/tracing/tracing.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionTester } from '../datasource/connection-tester.service.js';
import type { ServiceDatasource } from '../datasource/service-datasource.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { checkDataRequest } from './data-request-check.js';
import type { IncrementalRequest, StreamMarks } from '../engine/request/incremental-request.js';
import { IncrementalSubmission } from './incremental-submission.service.js';
import type { CreateJobDto } from './dto/create-job.dto.js';
import { JobAcceptedDto, JobResponseDto } from './dto/job-response.dto.js';
import type { JobRecord } from './job.entity.js';
import { JobError } from './job.error.js';
import { storedOutput } from './job-output.js';
import { JobRepository } from './job.repository.js';
import { jobLogFields } from './job-log-fields.js';
import { JobStatus } from './job-status.js';
import { JOB_QUEUE, type JobQueue } from './queue/job-queue.port.js';
import { requestHash } from './request-hash.js';
import { resultAvailability } from './result-availability.js';
import { ResultRetentionRepository } from './retention/result-retention.repository.js';
import { failedEvent } from './terminal-events.js';
import { failedColumns } from './transition-guard.js';
import { pendingJob } from './pending-job.js';
import { findOwnedJob } from './owned-job.js';

export interface CreateJobOutcome {
  readonly duplicate: boolean;
  readonly body: JobAcceptedDto;
}

/** Job creation, its checks in the order docs/job-lifecycle.md, "Creation" gives, and job reads. */
@Injectable()
export class JobService {
  private readonly logger = new Logger(JobService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRepository,
    private readonly resolver: DatasourceResolver,
    private readonly tester: ConnectionTester,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    private readonly retention: ResultRetentionRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly streams: IncrementalSubmission,
    @Optional() private readonly tracing: Tracing = Tracing.disabled(),
  ) {}

  async create(request: CreateJobDto, principal: Principal): Promise<CreateJobOutcome> {
    const source = validateSource(request.metadata);
    // Before dedup: a duplicate of another product's request must not hand its job over.
    if (!actsFor(principal, source)) throw AuthError.forbidden(`metadata.source '${source}' is not a product this credential acts for`);
    checkDataRequest(request.dataRequest, this.config.extraction);
    const incremental = (request.dataRequest.incremental ?? undefined) as IncrementalRequest | undefined;
    const configNames = Object.keys(request.dataRequest.mappedFields).sort();

    // A stream's job hashes with the marks it starts from, and finding them takes each table's
    // result key, which its datasource decides: resolved first (docs/job-lifecycle.md, "Creation").
    let datasources: ServiceDatasource[] | undefined;
    let from: StreamMarks | undefined;
    if (incremental) {
      datasources = await this.resolveAll(configNames, source, principal);
      from = await this.streams.startingMarks(incremental, source, datasources);
    }
    const hash = requestHash(request, from);
    const duplicate = await this.findDuplicate(hash);
    if (duplicate) return { duplicate: true, body: JobAcceptedDto.of(duplicate, true) };

    datasources ??= await this.resolveAll(configNames, source, principal);
    await this.assertReachable(datasources);
    const ranges = incremental ? await this.streams.checkCursors(request.dataRequest, incremental, from ?? {}, datasources) : undefined;

    const job = pendingJob(
      {
        id: this.ids.orderedUuid(),
        requestHash: hash,
        metadata: request.metadata,
        productName: source,
        mappedFields: request.dataRequest.mappedFields,
        filters: request.dataRequest.filters ?? null,
        limits: request.dataRequest.limits ? { ...request.dataRequest.limits } : null,
        output: storedOutput(request.output),
        ...(incremental ? { streamName: incremental.stream, incremental: { ...incremental, from: from ?? {}, tables: ranges } } : {}),
      },
      this.clock.now(),
    );
    // The worker reads these very connections, whatever happens to the names meanwhile.
    const connectionIds = Object.fromEntries(datasources.map((datasource) => [datasource.configName, datasource.id]));
    const twin = await this.insertOrFindTwin(job, connectionIds);
    if (twin) return { duplicate: true, body: JobAcceptedDto.of(twin, true) };

    try {
      // The worker's spans for this job join the trace of this request, even in another process.
      await this.queue.enqueue(job.id, undefined, this.tracing.carrier());
    } catch (error) {
      this.logger.error(`enqueue of job ${job.id} failed: ${String(error)}`, jobLogFields(job));
      const info = { code: FetCode.ServiceUnavailable, message: 'process failed: unable to enqueue the job' };
      await this.jobs.fail(job.id, info, failedEvent(job, info)).catch(() => undefined);
      throw new ServiceUnavailableError('the job queue is unavailable; the job was not started, please retry');
    }
    return { duplicate: false, body: JobAcceptedDto.of(job, false) };
  }

  /** Another product's job does not exist for a product principal. */
  async get(id: string, principal: Principal): Promise<JobResponseDto> {
    return JobResponseDto.from(await findOwnedJob(this.jobs, id, principal));
  }

  /**
   * Cancels a pending or processing job: it fails at once with FET-1105 and its job.failed event,
   * in one transaction. A worker running it finds the job no longer its own at its next lease
   * renewal (≤ 1 s), stops and stores nothing. Cancelling a cancelled job answers the same again.
   */
  async cancel(id: string, principal: Principal): Promise<JobResponseDto> {
    let job: JobRecord = await findOwnedJob(this.jobs, id, principal);
    // A few rounds: the job may move from pending to processing between the read and the update.
    for (let round = 0; round < 3 && (job.status === JobStatus.Pending || job.status === JobStatus.Processing); round += 1) {
      const info = { code: FetCode.ExtractionCancelled, message: `the job was cancelled (by ${principal.id}); nothing was stored` };
      const at = await this.jobs.fail(id, info, failedEvent(job, info), { from: [job.status] });
      if (at) {
        this.logger.log(`job ${id} cancelled by ${principal.id} while ${job.status}`, { ...jobLogFields(job), principal: principal.id });
        // The row as the change left it: no second read.
        return JobResponseDto.from({ ...job, ...failedColumns(info, at) });
      }
      // Refused: the job changed since it was read. Only then is it read again.
      job = (await this.jobs.findById(id)) as JobRecord;
    }
    if (job.status === JobStatus.Failed && job.error?.code === FetCode.ExtractionCancelled) return JobResponseDto.from(job);
    if (job.status === JobStatus.Pending || job.status === JobStatus.Processing) {
      throw new ServiceUnavailableError(`job ${id} changed while being cancelled; retrying is safe`);
    }
    throw new JobError(FetCode.JobAlreadyFinished, `job ${id} is already ${job.status}; only a pending or processing job can be cancelled`);
  }

  /** Inserts the job, or returns the job that holds its dedup key (active, or completed within the window). */
  private async insertOrFindTwin(job: JobRecord, connectionIds: Readonly<Record<string, string>>): Promise<JobRecord | null> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (await this.jobs.insertPending(job, connectionIds)) return null;
      const holder = await this.jobs.findByDedupKey(job.requestHash);
      if (!holder) continue;
      const since = this.windowStart();
      if (holder.status !== JobStatus.Completed) return holder;
      const now = this.clock.now();
      if (resultAvailability(holder, this.config.results.retentionSeconds, now) === 'deleted') {
        // Its retention ran out before the sweep came by: record the deletion (the sweep removes the
        // object), which also frees the key, as a deleted result does.
        await this.retention.requestResultDeletion(holder.id, now);
        continue;
      }
      if (holder.createdAt >= since) return holder;
      await this.jobs.releaseDedupKey(holder.id, job.requestHash, since);
    }
    throw new ServiceUnavailableError('could not record the job; please retry');
  }

  private windowStart(): Date {
    return new Date(this.clock.nowMs() - this.config.jobs.dedupWindowSeconds * 1000);
  }

  private async findDuplicate(hash: string): Promise<JobRecord | null> {
    const newest = await this.jobs.findNewestByHash(hash, this.windowStart());
    if (!newest || newest.status === JobStatus.Failed) return null;
    // A consumer that deleted the result (or let it expire) and asks again wants a fresh extraction.
    if (
      newest.status === JobStatus.Completed &&
      resultAvailability(newest, this.config.results.retentionSeconds, this.clock.now()) === 'deleted'
    )
      return null;
    return newest;
  }

  /**
   * The product check is the lookup itself: names resolve among the job's product's connections and
   * the internal datasources open to it. A product principal gets FET-1020 for every other name,
   * whoever holds it; an operator is told when a name belongs elsewhere (FET-1014, FET-1016).
   */
  private async resolveAll(configNames: string[], source: string, principal: Principal): Promise<ServiceDatasource[]> {
    const resolved = await this.resolver.resolve(configNames, [source]);
    const missing = configNames.filter((name) => !resolved.has(name));
    if (missing.length > 0) {
      if (principal.operator) await this.explainToOperator(missing, source);
      throw new JobError(
        FetCode.MissingDatasource,
        missing.length === configNames.length
          ? `No connections configured for the requested datasources: ${missing.join(', ')}`
          : `No connection configured for datasource(s): ${missing.join(', ')}`,
        { details: missing.map((datasource) => ({ type: 'datasource_not_found', datasource })) },
      );
    }
    return configNames.map((name) => resolved.get(name) as ServiceDatasource);
  }

  private async explainToOperator(missing: readonly string[], source: string): Promise<void> {
    const holders = await this.resolver.holders(missing);
    for (const name of missing) {
      const holder = holders.find((candidate) => candidate.configName === name);
      if (!holder) continue;
      if (!holder.internal && holder.productName === null) {
        throw new JobError(
          FetCode.NotAssigned,
          `Connection '${name}' has no product assigned. Use the assign endpoint to assign it first.`,
          {
            details: [{ type: 'not_assigned', datasource: name }],
          },
        );
      }
      throw productMismatch(name, source);
    }
  }

  private async assertReachable(datasources: ServiceDatasource[]): Promise<void> {
    const external = datasources.filter((datasource) => !datasource.internal);
    const results = await Promise.all(
      external.map(async (datasource) => ({
        datasource,
        result: await this.tester.test(datasource, this.config.jobs.connectionTestTimeoutMs),
      })),
    );
    const down = results.flatMap(({ datasource, result }) => (result.ok ? [] : [{ datasource, error: result.error }]));
    if (down.length === 0) return;
    throw new JobError(
      FetCode.ConnectionDown,
      down.map(({ datasource, error }) => `Connection '${datasource.configName}' is not available (${error.reason})`).join('; '),
      {
        details: down.map(({ datasource, error }) => ({
          type: 'connection_down',
          datasource: datasource.configName,
          message: error.message,
          reason: error.reason,
        })),
      },
    );
  }
}

function validateSource(metadata: Record<string, unknown>): string {
  // Own members only: metadata is free-form JSON, and `source` must not come from a prototype.
  if (!Object.hasOwn(metadata, 'source') || metadata.source === null || metadata.source === undefined) {
    throw new JobError(FetCode.MissingFields, 'metadata.source is required for job notification routing', {
      fields: { 'metadata.source': 'metadata.source is a required field' },
    });
  }
  if (typeof metadata.source !== 'string' || metadata.source.trim() === '') {
    throw new JobError(FetCode.MissingFields, 'metadata.source must be a non-empty string', {
      fields: { 'metadata.source': 'metadata.source must be a non-empty string' },
    });
  }
  return metadata.source.trim().toLowerCase();
}

function productMismatch(configName: string, source: string): JobError {
  return new JobError(
    FetCode.ProductMismatch,
    `Connection '${configName}' does not belong to the product identified by source '${source}'`,
    {
      details: [{ type: 'product_mismatch', datasource: configName }],
    },
  );
}
