import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { DEFAULT_CEILINGS, type AppConfig } from '../config/app-config.js';
import type { ConnectorSession, ResolvedDatasource, RowBatch, TableReadRequest } from '../engine/connectors/shared/engine-connector.js';
import { DatasourceQueryError } from '../datasource/datasource.error.js';
import type { JobRecord } from '../job/job.entity.js';
import type { JobRepository } from '../job/job.repository.js';
import { JobStatus } from '../job/job-status.js';
import type { ResultSink, ResultStorageService } from '../storage/result-storage.service.js';
import type { ExtractionPlan } from '../engine/executor/extraction-plan.js';
import type { ExtractionPlanner } from './extraction-planner.service.js';
import { ExtractionError } from '../engine/errors/extraction-error.js';
import { ExtractionService } from './extraction.service.js';
import type { MemoryGuard } from './memory-guard.js';

const JOB_ID = '0190f3c2-0000-7000-8000-000000000001';
const STARTED_AT = new Date('2026-03-01T10:00:00.000Z');
const WORKER_ID = `${hostname()}:${process.pid}:00000001`;
const CONFIG = { leases: { leaseMs: 60_000 }, extraction: DEFAULT_CEILINGS } as AppConfig;

const rows = (...ids: number[]): RowBatch => ({
  json: Buffer.from(ids.map((id) => JSON.stringify({ id })).join(',')),
  rowCount: ids.length,
});

/** A session reading `batches` for every table, or failing with `failure` after them. */
function session(batches: RowBatch[], failure?: Error): ConnectorSession & { close: ReturnType<typeof vi.fn> } {
  return {
    discover: async () => ({ tables: new Map() }),
    async *readRows(_request: TableReadRequest, signal: AbortSignal) {
      for (const batch of batches) yield batch;
      if (failure) throw failure;
      signal.throwIfAborted();
    },
    close: vi.fn(async () => undefined),
  };
}

function planOf(readFrom: ConnectorSession): ExtractionPlan {
  const table = { schema: 'public', name: 'accounts', key: 'accounts', columns: [{ name: 'id', dataType: 'int4' }], primaryKey: ['id'] };
  return {
    datasources: [
      { configName: 'pg_main', datasource: {} as ResolvedDatasource, session: readFrom, tables: [{ table, columns: table.columns }] },
    ],
    limits: DEFAULT_CEILINGS,
  };
}

/** A sink keeping what is written; `published` once the commit moved it to the job's path. */
function fakeSink() {
  const state = { text: '', finished: false, published: false, aborted: false };
  const sink: ResultSink = {
    write: async (chunk) => void (state.text += chunk.toString()),
    finish: vi.fn(async () => {
      state.finished = true;
      return {
        path: `external-data/${JOB_ID}.json`,
        sizeBytes: state.text.length,
        hmac: 'h'.repeat(64),
        sha256: 's'.repeat(64),
        keyVersion: '1',
      };
    }),
    publish: async () => void (state.published = true),
    abort: async () => void (state.aborted = true),
  };
  return { sink, state };
}

describe('ExtractionService', () => {
  let clock: ManualClock;
  let job: JobRecord;
  let jobs: {
    claim: ReturnType<typeof vi.fn>;
    findById: ReturnType<typeof vi.fn>;
    renewLease: ReturnType<typeof vi.fn>;
    complete: ReturnType<typeof vi.fn>;
    fail: ReturnType<typeof vi.fn>;
    release: ReturnType<typeof vi.fn>;
  };
  let plan: ReturnType<typeof vi.fn>;
  let openSink: ReturnType<typeof vi.fn>;
  let sink: ReturnType<typeof fakeSink>;
  let service: ExtractionService;

  beforeEach(() => {
    for (const level of ['log', 'warn', 'error'] as const) vi.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
    clock = new ManualClock(STARTED_AT);
    job = {
      id: JOB_ID,
      status: JobStatus.Processing,
      attempts: 2,
      startedAt: STARTED_AT,
      metadata: { source: 'reporter' },
      limits: null,
    } as Partial<JobRecord> as JobRecord;
    jobs = {
      claim: vi.fn(async () => true),
      findById: vi.fn(async () => ({ ...job })),
      renewLease: vi.fn(async () => true),
      // The real store runs `publish` inside the commit's transaction.
      complete: vi.fn(async (_id, _claim, _result, _event, publish: () => Promise<void>) => (await publish(), true)),
      fail: vi.fn(async () => true),
      release: vi.fn(async () => true),
    };
    // Planning takes 1.5 s of clock time, reading nothing.
    plan = vi.fn(async () => (clock.advance(1_500), planOf(session([rows(1, 2), rows(3)]))));
    sink = fakeSink();
    openSink = vi.fn(async () => sink.sink);
    service = new ExtractionService(
      CONFIG,
      jobs as unknown as JobRepository,
      { plan } as unknown as ExtractionPlanner,
      { openSink } as unknown as ResultStorageService,
      { check: () => undefined } as unknown as MemoryGuard,
      clock,
      new SequentialIdGenerator(),
    );
  });

  afterEach(() => vi.restoreAllMocks());

  const run = (shutdown = new AbortController().signal) => service.process(JOB_ID, shutdown);

  it('signs its claims with this process and an id of its own', () => {
    expect(service.workerId).toBe(WORKER_ID);
  });

  it('streams the rows to its own attempt object, then commits the result with its stats, stamped from the clock', async () => {
    expect(await run()).toBe('completed');

    expect(jobs.claim).toHaveBeenCalledWith(JOB_ID, WORKER_ID, 60_000);
    expect(openSink).toHaveBeenCalledWith(JOB_ID, DEFAULT_CEILINGS.maxResultBytes, { workerId: WORKER_ID, attempt: 2 });
    expect(JSON.parse(sink.state.text)).toEqual({ pg_main: { accounts: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    const [id, claim, result, event, , progress] = jobs.complete.mock.calls[0];
    expect([id, claim]).toEqual([JOB_ID, { workerId: WORKER_ID, attempt: 2 }]);
    expect(result).toEqual({
      resultPath: `external-data/${JOB_ID}.json`,
      resultHmac: 'h'.repeat(64),
      resultKeyVersion: '1',
      resultSha256: 's'.repeat(64),
      resultSizeBytes: sink.state.text.length,
      resultRowCount: 3,
      resultRowCounts: { pg_main: { accounts: 3 } },
    });
    expect(event).toMatchObject({
      id: `fetcher.job.completed.${JOB_ID}`,
      payload: { jobId: JOB_ID, executionTimeMs: 1_500, completedAt: '2026-03-01T10:00:01.500Z' },
    });
    expect(progress).toMatchObject({
      rowsRead: 3,
      startedAt: STARTED_AT.toISOString(),
      updatedAt: '2026-03-01T10:00:01.500Z',
      tables: { pg_main: { accounts: { status: 'done', rows: 3 } } },
    });
    expect(sink.state).toMatchObject({ published: true, aborted: false });
    expect(jobs.fail).not.toHaveBeenCalled();
  });

  it('closes the sessions the plan opened, whatever the outcome', async () => {
    const reading = session([rows(1)], new DatasourceQueryError('pg_main', 'relation "accounts" does not exist'));
    plan.mockResolvedValueOnce(planOf(reading));
    await run();
    expect(reading.close).toHaveBeenCalledTimes(1);
  });

  it('skips a job another delivery claimed first, touching nothing', async () => {
    jobs.claim.mockResolvedValueOnce(false);
    expect(await run()).toBe('skipped');
    expect(plan).not.toHaveBeenCalled();
    expect(openSink).not.toHaveBeenCalled();
  });

  it('fails the job with FET-1103 when a datasource fails mid-read, and discards what it had written', async () => {
    plan.mockResolvedValueOnce(planOf(session([rows(1)], new DatasourceQueryError('pg_main', 'relation "accounts" does not exist'))));
    expect(await run()).toBe('failed');

    expect(jobs.fail).toHaveBeenCalledExactlyOnceWith(
      JOB_ID,
      {
        code: FetCode.DatasourceQueryFailed,
        message: `datasource 'pg_main' failed while reading 'accounts': relation "accounts" does not exist`,
        details: [{ type: 'query_failed', datasource: 'pg_main', table: 'accounts', message: 'relation "accounts" does not exist' }],
      },
      expect.objectContaining({ id: `fetcher.job.failed.${JOB_ID}` }),
      { workerId: WORKER_ID, attempt: 2 },
    );
    expect(sink.state).toMatchObject({ finished: false, published: false, aborted: true });
    expect(jobs.complete).not.toHaveBeenCalled();
  });

  it('fails the job with the planner’s own code when planning refuses it, before any upload starts', async () => {
    plan.mockRejectedValueOnce(
      new ExtractionError(FetCode.SchemaValidationFailed, "table 'accounts' has no column 'emial'", {
        details: [{ type: 'unknown_field', table: 'accounts', field: 'emial' }],
      }),
    );
    expect(await run()).toBe('failed');
    expect(jobs.fail.mock.calls[0][1]).toEqual({
      code: FetCode.SchemaValidationFailed,
      message: "table 'accounts' has no column 'emial'",
      details: [{ type: 'unknown_field', table: 'accounts', field: 'emial' }],
    });
    expect(openSink).not.toHaveBeenCalled();
  });

  it('fails with a generic FET-0002 for an unexpected error, without its message', async () => {
    plan.mockRejectedValueOnce(new TypeError("Cannot read properties of undefined (reading 'host')"));
    expect(await run()).toBe('failed');
    expect(jobs.fail.mock.calls[0][1]).toEqual({ code: FetCode.Internal, message: 'internal error during extraction; nothing was stored' });
  });

  it('fails with FET-1102 once the job’s own timeout passes, and stores nothing', async () => {
    job.limits = { timeoutMs: 20 };
    const stalled: ConnectorSession = {
      ...session([]),
      async *readRows(_request, signal) {
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
        yield rows(1);
      },
    };
    plan.mockResolvedValueOnce(planOf(stalled));
    expect(await run()).toBe('failed');
    expect(jobs.fail.mock.calls[0][1]).toEqual({
      code: FetCode.ExtractionTimeout,
      message: 'extraction exceeded its timeout of 20 ms; nothing was stored',
    });
    expect(sink.state).toMatchObject({ finished: false, aborted: true });
  });

  it('stores nothing and leaves the job failed as it is when it was cancelled before the commit', async () => {
    // The cancel failed the job: the last lease confirmation finds it no longer ours.
    jobs.renewLease.mockResolvedValue(false);
    jobs.findById
      .mockResolvedValueOnce({ ...job })
      .mockResolvedValue({ ...job, status: JobStatus.Failed, error: { code: FetCode.ExtractionCancelled, message: 'cancelled' } });

    expect(await run()).toBe('lost');
    expect(jobs.complete).not.toHaveBeenCalled();
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(sink.state).toMatchObject({ published: false, aborted: true });
  });

  it('discards its object when another claim took the job before the commit', async () => {
    jobs.complete.mockResolvedValueOnce(false);
    expect(await run()).toBe('lost');
    expect(sink.state).toMatchObject({ published: false, aborted: true });
    expect(jobs.fail).not.toHaveBeenCalled();
  });

  it('hands the job back to pending when the worker shuts down mid-job, without failing it', async () => {
    const shutdown = new AbortController();
    plan.mockImplementationOnce(async () => {
      shutdown.abort(new Error('shutting down'));
      return planOf(session([rows(1)]));
    });
    expect(await run(shutdown.signal)).toBe('released');
    expect(jobs.release).toHaveBeenCalledExactlyOnceWith(JOB_ID, WORKER_ID, 'worker shutting down');
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(jobs.complete).not.toHaveBeenCalled();
    expect(sink.state.aborted).toBe(true);
  });
});
