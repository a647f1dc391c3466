import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { type AppConfig } from '../config/app-config.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import type { ConnectionTester, ConnectionTestResult } from '../datasource/connection-tester.service.js';
import type { ServiceDatasource } from '../datasource/service-datasource.js';
import type { ResolvedDatasource } from '../engine/connectors/shared/engine-connector.js';
import { DatasourceConnectError } from '../engine/errors/datasource-errors.js';
import type { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import type { CreateJobDto } from './dto/create-job.dto.js';
import type { JobErrorInfo, JobRecord } from './job.entity.js';
import type { JobRepository, TerminalEvent } from './job.repository.js';
import type { IncrementalSubmission } from './incremental-submission.service.js';
import { JobService } from './job.service.js';
import { JobStatus } from './job-status.js';
import type { JobQueue } from './queue/job-queue.port.js';
import type { ResultRetentionRepository } from './retention/result-retention.repository.js';
import { failedColumns } from './transition-guard.js';
import { serviceDatasource } from '../datasource/testing/service-datasources.js';

const HOUR = 3_600_000;
const REPORTER: Principal = { id: 'apikey:reporter', method: 'apikey', operator: false, products: ['reporter'] };
const OPERATOR: Principal = { id: 'admin-key:0', method: 'apikey', operator: true, products: [] };

/** A job store holding rows in memory, with the conditional updates of the real one. */
class MemoryJobStore {
  readonly rows = new Map<string, JobRecord>();
  readonly failures: { id: string; error: JobErrorInfo; event: TerminalEvent; from?: readonly JobStatus[] }[] = [];
  /** Runs inside the next `fail`, before its condition is checked: another process acting meanwhile. */
  beforeNextFail: (() => void) | undefined;

  constructor(private readonly clock: ManualClock) {}

  findById = async (id: string) => this.copy(this.rows.get(id));

  findNewestByHash = async (hash: string, since: Date) =>
    this.copy(
      [...this.rows.values()]
        .filter((job) => job.requestHash === hash && job.createdAt >= since)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0],
    );

  findByDedupKey = async (key: string) => this.copy([...this.rows.values()].find((job) => job.dedupKey === key));

  readonly connectionIds = new Map<string, Readonly<Record<string, string>>>();

  insertPending = async (job: JobRecord, connectionIds: Readonly<Record<string, string>> = {}) => {
    if ([...this.rows.values()].some((held) => held.dedupKey === job.dedupKey)) return false;
    this.rows.set(job.id, { ...job });
    this.connectionIds.set(job.id, connectionIds);
    return true;
  };

  releaseDedupKey = async (id: string, key: string, before: Date) => {
    const job = this.rows.get(id);
    if (job?.dedupKey === key && job.status === JobStatus.Completed && job.createdAt < before) job.dedupKey = null;
  };

  fail = async (id: string, error: JobErrorInfo, event: TerminalEvent, guard: { from?: readonly JobStatus[] } = {}) => {
    this.beforeNextFail?.();
    this.beforeNextFail = undefined;
    this.failures.push({ id, error, event, from: guard.from });
    const job = this.rows.get(id);
    if (!job || !(guard.from ?? [JobStatus.Pending, JobStatus.Processing]).includes(job.status)) return null;
    // As the real store: the change's columns at one time, which it returns.
    const at = this.clock.now();
    Object.assign(job, failedColumns(error, at));
    this.clock.advance(1_000);
    return at;
  };

  /** Turns a stored job into a completed one, as a worker would, at `completedAt`. */
  complete(id: string, completedAt: Date): void {
    Object.assign(this.rows.get(id) as JobRecord, {
      status: JobStatus.Completed,
      completedAt,
      resultPath: `external-data/${id}.json`,
      resultSha256: 'ab'.repeat(32),
    });
  }

  private copy(job: JobRecord | undefined): JobRecord | null {
    return job ? { ...job } : null;
  }
}

const datasource = serviceDatasource;

function request(overrides: { metadata?: Record<string, unknown>; mappedFields?: unknown; limits?: unknown } = {}): CreateJobDto {
  return {
    metadata: overrides.metadata ?? { source: 'Reporter', correlationId: 'c-1' },
    dataRequest: {
      mappedFields: overrides.mappedFields ?? { pg_main: { 'public.accounts': ['id', 'email'] } },
      ...(overrides.limits ? { limits: overrides.limits } : {}),
    },
  } as CreateJobDto;
}

/** The FetCode of what `promise` rejects with. */
async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason as { code?: string },
  );
  if (!error) throw new Error('expected a rejection');
  return String(error.code);
}

describe('JobService', () => {
  let clock: ManualClock;
  let store: MemoryJobStore;
  let datasources: Map<string, ServiceDatasource>;
  let testResults: Map<string, ConnectionTestResult>;
  let tester: { test: Mock<ConnectionTester['test']> };
  let queue: { enqueue: Mock<JobQueue['enqueue']> };
  let retention: { requestResultDeletion: Mock<ResultRetentionRepository['requestResultDeletion']> };
  let service: JobService;

  function build(results: { retentionSeconds: number | null } = { retentionSeconds: null }): JobService {
    const config = {
      extraction: DEFAULT_CEILINGS,
      jobs: { dedupWindowSeconds: 3_600, connectionTestTimeoutMs: 4_000 },
      results: { ...results, sweepIntervalMs: 60_000 },
    } as AppConfig;
    // Names resolve within the scope's products, as the real resolver does; holders() sees every product.
    const inScope = (found: ServiceDatasource, scope: readonly string[] | 'all') =>
      scope === 'all' || (found.productName !== null && scope.includes(found.productName.toLowerCase()));
    const resolver = {
      resolve: async (names: readonly string[], scope: readonly string[] | 'all') =>
        new Map([...datasources].filter(([name, found]) => names.includes(name) && inScope(found, scope))),
      holders: async (names: readonly string[]) =>
        [...datasources.values()]
          .filter((found) => names.includes(found.configName))
          .map(({ configName, productName, internal }) => ({ configName, productName, internal })),
    } as unknown as DatasourceResolver;
    return new JobService(
      config,
      store as unknown as JobRepository,
      resolver,
      tester as unknown as ConnectionTester,
      queue as unknown as JobQueue,
      retention as unknown as ResultRetentionRepository,
      clock,
      new SequentialIdGenerator(),
      {} as IncrementalSubmission,
    );
  }

  beforeEach(() => {
    vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    store = new MemoryJobStore(clock);
    datasources = new Map([['pg_main', datasource('pg_main')]]);
    testResults = new Map();
    tester = {
      test: vi.fn(async (target: ResolvedDatasource) => testResults.get(target.configName) ?? { ok: true, latencyMs: 3 }),
    };
    queue = { enqueue: vi.fn(async () => undefined) };
    retention = {
      requestResultDeletion: vi.fn(async (id: string, at: Date) => {
        Object.assign(store.rows.get(id) as JobRecord, { resultDeleteRequestedAt: at, dedupKey: null });
        return true;
      }),
    };
    service = build();
  });

  afterEach(() => vi.restoreAllMocks());

  describe('create', () => {
    it('records a pending job with a time-ordered id, stamped with the clock, tests its connection and queues it', async () => {
      const outcome = await service.create(request(), REPORTER);

      const id = '00000001-0000-7000-8000-000000000001';
      expect(outcome).toEqual({
        duplicate: false,
        body: { jobId: id, status: 'pending', createdAt: '2026-03-01T10:00:00.000Z', message: 'Job created and queued for processing' },
      });
      expect(store.connectionIds.get(id)).toEqual({ pg_main: 'id-pg_main' });
      expect(store.rows.get(id)).toMatchObject({
        status: JobStatus.Pending,
        productName: 'reporter',
        createdAt: clock.now(),
        updatedAt: clock.now(),
        attempts: 0,
        startedAt: null,
        completedAt: null,
      });
      expect(tester.test).toHaveBeenCalledWith(datasources.get('pg_main'), 4_000);
      expect(queue.enqueue).toHaveBeenCalledExactlyOnceWith(id, undefined, undefined);
    });

    it('answers a repeat within the dedup window with the existing job, flagged duplicate, without testing or queueing again', async () => {
      const first = await service.create(request(), REPORTER);
      clock.advance(HOUR - 1);
      // Same request, members in another order: the canonical hash is the same.
      const repeat = await service.create(request({ metadata: { correlationId: 'c-1', source: 'Reporter' } }), REPORTER);

      expect(repeat).toEqual({
        duplicate: true,
        body: { ...first.body, message: 'Duplicate request detected - returning existing job' },
      });
      expect(store.rows.size).toBe(1);
      expect(tester.test).toHaveBeenCalledTimes(1);
      expect(queue.enqueue).toHaveBeenCalledTimes(1);
    });

    it('answers a repeat with a job still processing, however old, rather than extracting twice', async () => {
      const first = await service.create(request(), REPORTER);
      (store.rows.get(first.body.jobId) as JobRecord).status = JobStatus.Processing;
      clock.advance(5 * HOUR);

      const repeat = await service.create(request(), REPORTER);
      expect(repeat.duplicate).toBe(true);
      expect(repeat.body).toMatchObject({ jobId: first.body.jobId, status: 'processing' });
    });

    it('starts a fresh job once the window has passed, taking the key from the completed one', async () => {
      const first = await service.create(request(), REPORTER);
      store.complete(first.body.jobId, clock.now());
      clock.advance(HOUR + 1);

      const second = await service.create(request(), REPORTER);
      expect(second.duplicate).toBe(false);
      expect(second.body.jobId).not.toBe(first.body.jobId);
      expect(store.rows.get(first.body.jobId)?.dedupKey).toBeNull();
      expect(store.rows.get(second.body.jobId)?.dedupKey).toBe(store.rows.get(first.body.jobId)?.requestHash);
    });

    it('starts a fresh job when the earlier one failed', async () => {
      const first = await service.create(request(), REPORTER);
      await store.fail(first.body.jobId, { code: FetCode.ExtractionTimeout, message: 'timeout' }, {} as TerminalEvent);

      const second = await service.create(request(), REPORTER);
      expect(second.duplicate).toBe(false);
      expect(second.body.jobId).not.toBe(first.body.jobId);
    });

    it('starts a fresh job when the completed one had its result deleted', async () => {
      const first = await service.create(request(), REPORTER);
      store.complete(first.body.jobId, clock.now());
      await retention.requestResultDeletion(first.body.jobId, clock.now());
      clock.advance(60_000);

      const second = await service.create(request(), REPORTER);
      expect(second.duplicate).toBe(false);
      expect(queue.enqueue).toHaveBeenLastCalledWith(second.body.jobId, undefined, undefined);
    });

    it('records the deletion of a result whose retention ran out before the sweep came, at the clock time, and starts afresh', async () => {
      service = build({ retentionSeconds: 600 });
      const first = await service.create(request(), REPORTER);
      store.complete(first.body.jobId, clock.now());
      clock.advance(600_000);

      const second = await service.create(request(), REPORTER);
      expect(second.duplicate).toBe(false);
      expect(retention.requestResultDeletion).toHaveBeenCalledExactlyOnceWith(first.body.jobId, new Date('2026-03-01T10:10:00.000Z'));
    });

    it('still answers with a completed job whose retention has not run out', async () => {
      service = build({ retentionSeconds: 600 });
      const first = await service.create(request(), REPORTER);
      store.complete(first.body.jobId, clock.now());
      clock.advance(599_999);

      expect((await service.create(request(), REPORTER)).duplicate).toBe(true);
      expect(retention.requestResultDeletion).not.toHaveBeenCalled();
    });

    it.each([
      ['no metadata.source', { metadata: { correlationId: 'x' } }, FetCode.MissingFields],
      ['a blank metadata.source', { metadata: { source: '  ' } }, FetCode.MissingFields],
      [
        'a source inherited from the prototype',
        { metadata: Object.create({ source: 'reporter' }) as Record<string, unknown> },
        FetCode.MissingFields,
      ],
      ['an empty mappedFields', { mappedFields: {} }, FetCode.InvalidDataRequest],
      ['a limit above the ceiling', { limits: { maxDatasources: 11 } }, FetCode.InvalidDataRequest],
      [
        'more tables than its own limit allows',
        { mappedFields: { pg_main: { a: ['id'], b: ['id'] } }, limits: { maxTablesPerDatasource: 1 } },
        FetCode.LimitExceeded,
      ],
      ['a datasource nobody configured', { mappedFields: { nowhere: { t: ['id'] } } }, FetCode.MissingDatasource],
    ])('refuses a request with %s (%s) and records nothing', async (_case, overrides, code) => {
      expect(await rejectionCode(service.create(request(overrides), REPORTER))).toBe(code);
      expect(store.rows.size).toBe(0);
      expect(queue.enqueue).not.toHaveBeenCalled();
    });

    it('names every datasource nobody configured, in the details', async () => {
      const creating = service.create(request({ mappedFields: { pg_main: { t: ['id'] }, gone: { t: ['id'] } } }), REPORTER);
      await expect(creating).rejects.toMatchObject({
        code: FetCode.MissingDatasource,
        message: 'No connection configured for datasource(s): gone',
        details: [{ type: 'datasource_not_found', datasource: 'gone' }],
      });
    });

    it('refuses a source the credential does not act for (FET-0011), before looking for a duplicate', async () => {
      const findNewest = vi.spyOn(store, 'findNewestByHash');
      expect(await rejectionCode(service.create(request({ metadata: { source: 'billing' } }), REPORTER))).toBe(FetCode.Forbidden);
      expect(findNewest).not.toHaveBeenCalled();
    });

    it("answers a product's job naming an unassigned or another product's connection exactly as one naming nothing (FET-1020)", async () => {
      const answerTo = (promise: Promise<unknown>) =>
        promise.then(
          () => 'accepted',
          (error: { code: string; message: string; details: unknown }) => ({
            code: error.code,
            message: error.message,
            details: error.details,
          }),
        );
      datasources.delete('pg_main');
      const nowhere = await answerTo(service.create(request(), REPORTER));
      datasources.set('pg_main', datasource('pg_main', { productName: null }));
      const unassigned = await answerTo(service.create(request(), REPORTER));
      datasources.set('pg_main', datasource('pg_main', { productName: 'billing' }));
      const foreign = await answerTo(service.create(request(), REPORTER));
      expect(nowhere).toMatchObject({ code: FetCode.MissingDatasource });
      expect(unassigned).toEqual(nowhere);
      expect(foreign).toEqual(nowhere);
      expect(tester.test).not.toHaveBeenCalled();
      expect(store.rows.size).toBe(0);
    });

    it('tells an operator that a name is unassigned (FET-1014) or belongs to another product (FET-1016), without testing it', async () => {
      datasources.set('pg_main', datasource('pg_main', { productName: null }));
      expect(await rejectionCode(service.create(request(), OPERATOR))).toBe(FetCode.NotAssigned);
      datasources.set('pg_main', datasource('pg_main', { productName: 'billing' }));
      expect(await rejectionCode(service.create(request(), OPERATOR))).toBe(FetCode.ProductMismatch);
      expect(tester.test).not.toHaveBeenCalled();
      expect(store.rows.size).toBe(0);
    });

    it('refuses a job whose connection is down (FET-1040), naming the reason', async () => {
      testResults.set('pg_main', { ok: false, error: new DatasourceConnectError('pg_main', 'unreachable', 'connect ECONNREFUSED') });
      await expect(service.create(request(), REPORTER)).rejects.toMatchObject({
        code: FetCode.ConnectionDown,
        message: "Connection 'pg_main' is not available (unreachable)",
        details: [{ type: 'connection_down', datasource: 'pg_main', message: 'connect ECONNREFUSED', reason: 'unreachable' }],
      });
      expect(store.rows.size).toBe(0);
    });

    it('fails the recorded job and answers 503 (FET-0003) when the queue refuses it', async () => {
      queue.enqueue.mockRejectedValueOnce(new Error('redis away'));
      expect(await rejectionCode(service.create(request(), REPORTER))).toBe(FetCode.ServiceUnavailable);

      const [job] = store.rows.values();
      expect(job).toMatchObject({
        status: JobStatus.Failed,
        dedupKey: null,
        error: { code: FetCode.ServiceUnavailable, message: 'process failed: unable to enqueue the job' },
      });
      expect(store.failures[0].event).toMatchObject({ id: `fetcher.job.failed.${job.id}`, eventType: 'job.failed' });
    });
  });

  describe('cancel', () => {
    async function pendingJob(): Promise<string> {
      return (await service.create(request(), REPORTER)).body.jobId;
    }

    it('fails a pending job with FET-1105 and its job.failed event, and answers the same when asked again', async () => {
      const id = await pendingJob();
      const findById = vi.spyOn(store, 'findById');
      const cancelled = await service.cancel(id, REPORTER);

      expect(cancelled).toMatchObject({
        id,
        status: 'failed',
        error: { code: FetCode.ExtractionCancelled, message: 'the job was cancelled (by apikey:reporter); nothing was stored' },
      });
      expect(store.failures).toHaveLength(1);
      expect(store.failures[0].event).toMatchObject({ eventType: 'job.failed', payload: { jobId: id, status: 'failed' } });
      // The answer is the row as the change left it: one read (the owner check), none after the
      // change, and the same as a later read.
      expect(findById).toHaveBeenCalledTimes(1);
      expect(await service.get(id, REPORTER)).toEqual(cancelled);
      expect(await service.cancel(id, REPORTER)).toEqual(cancelled);
      expect(store.failures).toHaveLength(1);
    });

    it('cancels a job that a worker claimed between the read and the update', async () => {
      const id = await pendingJob();
      store.beforeNextFail = () => void ((store.rows.get(id) as JobRecord).status = JobStatus.Processing);

      expect((await service.cancel(id, REPORTER)).error?.code).toBe(FetCode.ExtractionCancelled);
      expect(store.failures.map((failure) => failure.from)).toEqual([[JobStatus.Pending], [JobStatus.Processing]]);
    });

    it('refuses to cancel a finished job (FET-1110) and leaves it as it was', async () => {
      const id = await pendingJob();
      store.complete(id, clock.now());
      await expect(service.cancel(id, REPORTER)).rejects.toMatchObject({
        code: FetCode.JobAlreadyFinished,
        message: `job ${id} is already completed; only a pending or processing job can be cancelled`,
      });
      expect(store.rows.get(id)?.status).toBe(JobStatus.Completed);
    });

    it('answers 503 when the job keeps changing under the cancel', async () => {
      const id = await pendingJob();
      // Every round finds the job moved on to the other active status.
      vi.spyOn(store, 'fail').mockImplementation(async () => {
        const job = store.rows.get(id) as JobRecord;
        job.status = job.status === JobStatus.Pending ? JobStatus.Processing : JobStatus.Pending;
        return null;
      });
      expect(await rejectionCode(service.cancel(id, REPORTER))).toBe(FetCode.ServiceUnavailable);
    });

    it("does not let a product see or cancel another product's job: it does not exist for it (FET-1001)", async () => {
      const id = await pendingJob();
      const billing: Principal = { id: 'apikey:billing', method: 'apikey', operator: false, products: ['billing'] };
      expect(await rejectionCode(service.cancel(id, billing))).toBe(FetCode.NotFound);
      expect(await rejectionCode(service.get(id, billing))).toBe(FetCode.NotFound);
      expect(await rejectionCode(service.cancel('00000000-0000-7000-8000-00000000ffff', REPORTER))).toBe(FetCode.NotFound);
      expect(store.rows.get(id)?.status).toBe(JobStatus.Pending);
    });
  });
});
