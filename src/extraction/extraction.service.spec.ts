import { createHash, createHmac, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import { type AppConfig } from '../config/app-config.js';
import type { DatasourceResolver, RecordedDatasource } from '../datasource/datasource-resolver.service.js';
import type { ServiceDatasource } from '../datasource/service-datasource.js';
import { DatasourceType } from '../engine/connectors/datasource-type.js';
import type { ConnectorSession, RowBatch, TableInfo, TableReadRequest } from '../engine/connectors/shared/engine-connector.js';
import { DatasourceQueryError } from '../engine/errors/datasource-errors.js';
import { ExtractionError } from '../engine/errors/engine-errors.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import { openResultWithKeys } from '../engine/result/result-opener.js';
import { MemoryUpload } from '../engine/result/testing/memory-upload.js';
import { scriptedEngine } from '../engine/testing/scripted-engine.js';
import type { JobRecord } from '../job/job.entity.js';
import type { JobRepository } from '../job/job.repository.js';
import { JobStatus } from '../job/job-status.js';
import type { ResultStorageService, StagedResult } from '../storage/result-storage.service.js';
import type { StreamRepository } from '../stream/stream.repository.js';
import { ExtractionService } from './extraction.service.js';
import type { MemoryGuard } from './memory-guard.js';
import { TimerScheduler } from '../common/clock/scheduler.js';

const JOB_ID = '0190f3c2-0000-7000-8000-000000000001';
const STARTED_AT = new Date('2026-03-01T10:00:00.000Z');
const WORKER_ID = `${hostname()}:${process.pid}:00000001`;
const CONFIG = { leases: { leaseMs: 60_000 }, extraction: DEFAULT_CEILINGS } as AppConfig;
const KEYS = { hmacKey: randomBytes(32), encryptionKey: randomBytes(32) };
const ACCOUNTS: TableInfo = {
  schema: 'public',
  name: 'accounts',
  key: 'accounts',
  columns: [{ name: 'id', dataType: 'int4' }],
  primaryKey: ['id'],
};

const rows = (...ids: number[]): RowBatch => ({
  json: Buffer.from(ids.map((id) => JSON.stringify({ id })).join(',')),
  rowCount: ids.length,
});

/** A session discovering `accounts` and reading `batches` from it, or failing with `failure` after them. */
function session(batches: RowBatch[], failure?: Error): ConnectorSession & { close: ReturnType<typeof vi.fn> } {
  return {
    discover: async () => ({ tables: new Map([['accounts', ACCOUNTS]]) }),
    async *readRows(_request: TableReadRequest, signal: AbortSignal) {
      for (const batch of batches) yield batch;
      if (failure) throw failure;
      signal.throwIfAborted();
    },
    close: vi.fn(async () => undefined),
  };
}

const PG_MAIN = {
  id: 'c1',
  configName: 'pg_main',
  type: DatasourceType.PostgreSQL,
  host: 'db.example.com',
  port: 5432,
  databaseName: 'main',
  schemaName: null,
  userName: 'u',
  password: 'p',
  ssl: { mode: null },
  metadata: {},
  productName: 'reporter',
  internal: false,
} satisfies ServiceDatasource;

/** The attempt's staged result: an upload kept in memory, `published` once the commit moved it to the job's path. */
function fakeStaged() {
  const upload = new MemoryUpload();
  /** A per-table result's parts, by path. */
  const parts = new Map<string, MemoryUpload>();
  const state = { published: false, aborted: false };
  const staged: StagedResult = {
    path: `external-data/${JOB_ID}.json`,
    keyVersion: '1',
    keys: KEYS,
    upload,
    parts: {
      openPart: (part) => {
        const path = `external-data/${JOB_ID}/${part.datasource}/${part.fileName}`;
        parts.set(path, new MemoryUpload());
        return { path, upload: parts.get(path) as MemoryUpload };
      },
      openManifest: () => upload,
    },
    publish: async () => void (state.published = true),
    abort: async () => void (state.aborted = true),
  };
  return { staged, upload, parts, state, plaintext: () => openResultWithKeys(upload.body, KEYS).plaintext.toString() };
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
    datasourcesOf: ReturnType<typeof vi.fn>;
  };
  let open: ReturnType<typeof vi.fn<(...args: unknown[]) => Promise<ConnectorSession>>>;
  let resolve: ReturnType<typeof vi.fn>;
  let stageResult: ReturnType<typeof vi.fn>;
  let result: ReturnType<typeof fakeStaged>;
  let service: ExtractionService;

  beforeEach(() => {
    for (const level of ['log', 'warn', 'error'] as const) vi.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
    clock = new ManualClock(STARTED_AT);
    job = {
      id: JOB_ID,
      status: JobStatus.Processing,
      attempts: 2,
      startedAt: STARTED_AT,
      mappedFields: { pg_main: { accounts: ['id'] } },
      filters: null,
      metadata: { source: 'reporter' },
      limits: null,
    } as Partial<JobRecord> as JobRecord;
    jobs = {
      claim: vi.fn(async () => ({ ...job })),
      findById: vi.fn(async () => ({ ...job })),
      renewLease: vi.fn(async () => true),
      // The real store runs `publish` inside the commit's transaction.
      complete: vi.fn(async (_id, _claim, _result, _event, publish: () => Promise<void>) => (await publish(), true)),
      fail: vi.fn(async () => true),
      release: vi.fn(async () => true),
      datasourcesOf: vi.fn(async () => [{ jobId: JOB_ID, configName: 'pg_main', connectionId: PG_MAIN.id }]),
    };
    // Connecting takes 1.5 s of clock time.
    open = vi.fn(async () => (clock.advance(1_500), session([rows(1, 2), rows(3)])) as ConnectorSession);
    result = fakeStaged();
    stageResult = vi.fn(() => result.staged);
    resolve = vi.fn(
      async (recorded: readonly RecordedDatasource[]) =>
        new Map(recorded.filter(({ configName }) => configName === 'pg_main').map(({ configName }) => [configName, PG_MAIN])),
    );
    service = new ExtractionService(
      CONFIG,
      jobs as unknown as JobRepository,
      { resolveRecorded: resolve } as unknown as DatasourceResolver,
      scriptedEngine((datasource, signal) => open(datasource, signal)),
      { stageResult } as unknown as ResultStorageService,
      { check: () => undefined } as unknown as MemoryGuard,
      clock,
      new TimerScheduler(),
      new SequentialIdGenerator(),
      {} as StreamRepository,
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
    expect(stageResult).toHaveBeenCalledWith(JOB_ID, { workerId: WORKER_ID, attempt: 2 });
    const plaintext = result.plaintext();
    expect(JSON.parse(plaintext)).toEqual({ pg_main: { accounts: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    const [id, claim, stored, event, , progress] = jobs.complete.mock.calls[0];
    expect([id, claim]).toEqual([JOB_ID, { workerId: WORKER_ID, attempt: 2 }]);
    expect(stored).toEqual({
      // The time the job.completed event below carries: the row and the event agree.
      completedAt: new Date('2026-03-01T10:00:01.500Z'),
      resultPath: `external-data/${JOB_ID}.json`,
      resultHmac: createHmac('sha256', KEYS.hmacKey).update(plaintext).digest('hex'),
      resultKeyVersion: '1',
      resultSha256: createHash('sha256').update(plaintext).digest('hex'),
      resultSizeBytes: Buffer.byteLength(plaintext),
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
    expect(result.state).toMatchObject({ published: true, aborted: false });
    expect(jobs.fail).not.toHaveBeenCalled();
  });

  it('gives a job of the default output exactly the original job.completed payload', async () => {
    expect(await run()).toBe('completed');
    const [, , stored, event] = jobs.complete.mock.calls[0];
    expect(event.payload).not.toHaveProperty('output');
    expect(event.payload.result).toEqual({
      path: stored.resultPath,
      sizeBytes: stored.resultSizeBytes,
      rowCount: 3,
      format: 'json',
      hmac: stored.resultHmac,
      integrity: { algorithm: 'HMAC-SHA256', signature: stored.resultHmac },
      protection: { encrypted: true, mode: 'adapter-managed', appliedBy: 'adapter' },
    });
    expect(result.parts.size).toBe(0);
  });

  it('writes a csv job’s parts to the staged part sink, records them, and its event carries the output and the parts', async () => {
    job.output = { format: 'csv', compression: 'gzip' };
    expect(await run()).toBe('completed');

    const path = `external-data/${JOB_ID}/pg_main/accounts.csv.gz`;
    expect([...result.parts.keys()]).toEqual([path]);
    const file = openResultWithKeys((result.parts.get(path) as MemoryUpload).body, KEYS).plaintext;
    expect(gunzipSync(file).toString()).toBe('id\n1\n2\n3\n');
    const [, , stored, event] = jobs.complete.mock.calls[0];
    const part = {
      datasource: 'pg_main',
      table: 'accounts',
      path,
      format: 'csv',
      compression: 'gzip',
      sizeBytes: file.length,
      rowCount: 3,
    };
    expect(stored.resultParts).toEqual([
      {
        ...part,
        sha256: createHash('sha256').update(file).digest('hex'),
        hmac: createHmac('sha256', KEYS.hmacKey).update(file).digest('hex'),
      },
    ]);
    // The one object at resultPath is the manifest, and the job's digests are its own.
    const manifest = result.plaintext();
    expect(JSON.parse(manifest)).toEqual({ version: 1, format: 'csv', compression: 'gzip', parts: stored.resultParts });
    expect(stored).toMatchObject({
      resultPath: `external-data/${JOB_ID}.json`,
      resultSha256: createHash('sha256').update(manifest).digest('hex'),
      resultSizeBytes: Buffer.byteLength(manifest),
    });
    expect(event.payload.output).toEqual({ format: 'csv', compression: 'gzip' });
    expect(event.payload.result).toMatchObject({ path: stored.resultPath, format: 'csv', parts: stored.resultParts });
    expect(result.state).toMatchObject({ published: true, aborted: false });
  });

  it('writes an ndjson job as one object, with no parts (the connectors frame its rows: this fake session does not)', async () => {
    job.output = { format: 'ndjson', compression: 'none' };
    expect(await run()).toBe('completed');
    const [, , stored, event] = jobs.complete.mock.calls[0];
    expect(stored).not.toHaveProperty('resultParts');
    expect(event.payload).toMatchObject({ output: { format: 'ndjson', compression: 'none' }, result: { format: 'ndjson' } });
    expect(result.parts.size).toBe(0);
  });

  it('closes the sessions the plan opened, whatever the outcome', async () => {
    const reading = session([rows(1)], new DatasourceQueryError('pg_main', 'relation "accounts" does not exist'));
    open.mockResolvedValueOnce(reading);
    await run();
    expect(reading.close).toHaveBeenCalledTimes(1);
  });

  it('skips a job another delivery claimed first, touching nothing', async () => {
    jobs.claim.mockResolvedValueOnce(null);
    expect(await run()).toBe('skipped');
    expect(open).not.toHaveBeenCalled();
    expect(stageResult).not.toHaveBeenCalled();
  });

  it('fails the job with FET-1103 when a datasource fails mid-read, and discards what it had written', async () => {
    open.mockResolvedValueOnce(session([rows(1)], new DatasourceQueryError('pg_main', 'relation "accounts" does not exist')));
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
    expect(result.state).toMatchObject({ published: false, aborted: true });
    expect(result.upload.completed).toBe(false);
    expect(jobs.complete).not.toHaveBeenCalled();
  });

  it('fails the job with the planner’s own code when planning refuses it, before any byte is uploaded', async () => {
    job.mappedFields = { pg_main: { accounts: ['emial'] } };
    expect(await run()).toBe('failed');
    expect(jobs.fail.mock.calls[0][1]).toEqual({
      code: FetCode.SchemaValidationFailed,
      message: 'extraction request failed schema validation: field_not_found pg_main.accounts.emial',
      details: [{ type: 'field_not_found', datasource: 'pg_main', table: 'accounts', field: 'emial' }],
    });
    expect(result.upload.chunks).toEqual([]);
    expect(result.state.aborted).toBe(true);
  });

  it('fails with the error a checkpoint throws between batches (the memory guard)', async () => {
    const overMemory = new ExtractionError(FetCode.WorkerMemoryExceeded, 'worker memory above its limit; nothing was stored');
    (service as unknown as { memory: MemoryGuard }).memory = {
      check: () => {
        throw overMemory;
      },
    } as unknown as MemoryGuard;
    expect(await run()).toBe('failed');
    expect(jobs.fail.mock.calls[0][1]).toEqual({ code: FetCode.WorkerMemoryExceeded, message: overMemory.message });
  });

  it('fails with a generic FET-0002 for an unexpected error, without its message', async () => {
    resolve.mockRejectedValueOnce(new TypeError("Cannot read properties of undefined (reading 'host')"));
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
    open.mockResolvedValueOnce(stalled);
    expect(await run()).toBe('failed');
    expect(jobs.fail.mock.calls[0][1]).toEqual({
      code: FetCode.ExtractionTimeout,
      message: 'extraction exceeded its timeout of 20 ms; nothing was stored',
    });
    expect(result.state.aborted).toBe(true);
    expect(result.upload.completed).toBe(false);
  });

  it('stores nothing and leaves the job failed as it is when it was cancelled before the commit', async () => {
    // The cancel failed the job between the last renewal and the commit: the commit's guard refuses.
    jobs.complete.mockResolvedValueOnce(false);
    jobs.findById.mockResolvedValue({
      ...job,
      status: JobStatus.Failed,
      error: { code: FetCode.ExtractionCancelled, message: 'cancelled' },
    });

    expect(await run()).toBe('lost');
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(result.state).toMatchObject({ published: false, aborted: true });
  });

  it('asks the store nothing between the extraction and the commit: the commit itself checks the lease', async () => {
    expect(await run()).toBe('completed');
    // The lease timer of a job this short never fired: no renewal, only the claim's lease and the commit.
    expect(jobs.renewLease).not.toHaveBeenCalled();
    // The claim hands over the job it locked: no second read of it.
    expect(jobs.findById).not.toHaveBeenCalled();
    expect(jobs.complete).toHaveBeenCalledTimes(1);
  });

  it('discards its object when another claim took the job before the commit', async () => {
    jobs.complete.mockResolvedValueOnce(false);
    expect(await run()).toBe('lost');
    expect(result.state).toMatchObject({ published: false, aborted: true });
    expect(jobs.fail).not.toHaveBeenCalled();
  });

  it('stores nothing and decides nothing more when the store fails the commit: the lease runs out and the sweep hands the job on', async () => {
    const warn = vi.mocked(Logger.prototype.warn);
    jobs.complete.mockRejectedValueOnce(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(await run()).toBe('lost');
    expect(result.state).toMatchObject({ published: false, aborted: true });
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith(
      `job ${JOB_ID} stopped and stored nothing: the job store failed (connect ECONNREFUSED 127.0.0.1:5432); it is retried once its lease runs out`,
      expect.objectContaining({ jobId: JOB_ID }),
    );
  });

  it('does not fail the job when the store cannot be read for its datasources: nothing is stored, the sweep hands it on', async () => {
    jobs.datasourcesOf.mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    expect(await run()).toBe('lost');
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(jobs.complete).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });

  it('hands the job back to pending when the worker shuts down mid-job, without failing it', async () => {
    const shutdown = new AbortController();
    open.mockImplementationOnce(async () => {
      shutdown.abort(new Error('shutting down'));
      return session([rows(1)]);
    });
    expect(await run(shutdown.signal)).toBe('released');
    expect(jobs.release).toHaveBeenCalledExactlyOnceWith(JOB_ID, WORKER_ID, 'worker shutting down');
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(jobs.complete).not.toHaveBeenCalled();
    expect(result.state.aborted).toBe(true);
  });
});
