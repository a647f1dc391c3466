import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import type { AppConfig } from '../config/app-config.js';
import { DatasourceType } from '../engine/connectors/datasource-type.js';
import type { ConnectorSession, TableInfo, TableReadRequest } from '../engine/connectors/shared/engine-connector.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { createEngine } from '../engine/engine.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import { MemoryUpload } from '../engine/result/testing/memory-upload.js';
import { scriptedConnector } from '../engine/testing/scripted-engine.js';
import type { JobRecord } from '../job/job.entity.js';
import type { CompletionStep, JobRepository } from '../job/job.repository.js';
import { JobStatus } from '../job/job-status.js';
import type { ResultStorageService, StagedResult } from '../storage/result-storage.service.js';
import { marksMoved } from '../stream/stream.error.js';
import type { StreamRepository } from '../stream/stream.repository.js';
import { ExtractionService } from './extraction.service.js';
import type { MemoryGuard } from './memory-guard.js';
import { TimerScheduler } from '../common/clock/scheduler.js';

const JOB_ID = '0190f3c2-0000-7000-8000-0000000000c1';
const KEYS = { hmacKey: randomBytes(32), encryptionKey: randomBytes(32) };
const ORDERS: TableInfo = {
  schema: 'public',
  name: 'orders',
  key: 'orders',
  columns: [{ name: 'id', dataType: 'int8' }],
  primaryKey: ['id'],
};
const FROM = { pg_main: { orders: { column: 'id', type: 'integer' as const, value: '10' } } };

/**
 * The worker's side of a stream: the engine is given the request and the marks the job read at
 * submission, and the new marks are committed by a step of the completion's own transaction,
 * which fails the job with FET-1112 when the stream moved meanwhile.
 */
describe('ExtractionService and incremental streams', () => {
  let reads: TableReadRequest[];
  let job: JobRecord;
  let steps: Array<CompletionStep | undefined>;
  let jobs: Record<'claim' | 'findById' | 'renewLease' | 'complete' | 'fail' | 'datasourcesOf', ReturnType<typeof vi.fn>>;
  let streams: { commitMarks: ReturnType<typeof vi.fn> };
  let state: { published: boolean; aborted: boolean };
  let service: ExtractionService;

  beforeEach(() => {
    for (const level of ['log', 'warn', 'error'] as const) vi.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
    reads = [];
    steps = [];
    state = { published: false, aborted: false };
    job = {
      id: JOB_ID,
      status: JobStatus.Processing,
      attempts: 1,
      startedAt: new Date('2026-03-01T10:00:00.000Z'),
      productName: 'reporter',
      metadata: { source: 'reporter' },
      mappedFields: { pg_main: { orders: ['id'] } },
      filters: null,
      limits: null,
      streamName: 'nightly',
      incremental: { stream: 'nightly', cursors: { pg_main: { orders: 'id' } }, from: FROM },
    } as Partial<JobRecord> as JobRecord;
    // The real store runs the step, then the publish, inside the completion's transaction; a step that throws commits nothing.
    jobs = {
      claim: vi.fn(async () => ({ ...job })),
      findById: vi.fn(async () => ({ ...job })),
      renewLease: vi.fn(async () => true),
      complete: vi.fn(async (_id, _claim, _result, _event, publish: () => Promise<void>, _progress, step?: CompletionStep) => {
        steps.push(step);
        await step?.({} as never);
        await publish();
        return true;
      }),
      fail: vi.fn(async () => true),
      datasourcesOf: vi.fn(async () => [{ jobId: JOB_ID, configName: 'pg_main', connectionId: 'c1' }]),
    };
    streams = { commitMarks: vi.fn(async () => undefined) };
    const session: ConnectorSession = {
      discover: async () => ({ tables: new Map([['orders', ORDERS]]) }),
      async *readRows(request: TableReadRequest) {
        reads.push(request);
        request.onRangeBound?.('12');
        yield { json: Buffer.from('{"id":11},{"id":12}'), rowCount: 2 };
      },
      close: async () => undefined,
    };
    const engine = createEngine({
      connectors: [{ ...scriptedConnector(async () => session), cursorKind: (column) => (column.dataType === 'int8' ? 'integer' : null) }],
      egress: new EgressGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']),
    });
    const upload = new MemoryUpload();
    const staged = {
      path: `external-data/${JOB_ID}.json`,
      keyVersion: '1',
      keys: KEYS,
      upload,
      parts: { openPart: () => ({ path: '', upload }), openManifest: () => upload },
      publish: async () => void (state.published = true),
      abort: async () => void (state.aborted = true),
    } as StagedResult;
    const datasource = { id: 'c1', configName: 'pg_main', type: DatasourceType.PostgreSQL, host: 'db.example.com', port: 5432 };
    service = new ExtractionService(
      { leases: { leaseMs: 60_000 }, extraction: DEFAULT_CEILINGS } as AppConfig,
      jobs as unknown as JobRepository,
      {
        resolveRecorded: async () => new Map([['pg_main', { ...datasource, databaseName: 'main', userName: 'u', password: 'p' }]]),
      } as never,
      engine,
      { stageResult: () => staged } as unknown as ResultStorageService,
      { check: () => undefined } as unknown as MemoryGuard,
      new ManualClock('2026-03-01T10:00:01.000Z'),
      new TimerScheduler(),
      new SequentialIdGenerator(),
      streams as unknown as StreamRepository,
    );
  });
  afterEach(() => vi.restoreAllMocks());

  it('reads above the marks read at submission and commits the new ones with the completion, recording the ranges', async () => {
    expect(await service.process(JOB_ID, new AbortController().signal)).toBe('completed');
    expect(reads[0].range).toMatchObject({ kind: 'integer', after: '10' });
    const tables = { pg_main: { orders: { column: 'id', type: 'integer', from: '10', fromInclusive: false, to: '12', rows: 2 } } };
    const [, , stored, event] = jobs.complete.mock.calls[0];
    expect(stored.incremental).toEqual({ ...job.incremental, tables });
    expect(event.payload.incremental).toEqual({ stream: 'nightly', tables });
    expect(streams.commitMarks).toHaveBeenCalledWith(
      {},
      {
        productName: 'reporter',
        stream: 'nightly',
        jobId: JOB_ID,
        from: FROM,
        outcome: { stream: 'nightly', tables, marks: { pg_main: { orders: { column: 'id', type: 'integer', value: '12' } } } },
      },
      new Date('2026-03-01T10:00:01.000Z'),
    );
    expect(state).toEqual({ published: true, aborted: false });
  });

  it('fails the job with FET-1112 and stores nothing when the stream’s marks moved under it', async () => {
    streams.commitMarks.mockRejectedValueOnce(marksMoved('nightly', 'pg_main.orders'));
    expect(await service.process(JOB_ID, new AbortController().signal)).toBe('failed');
    expect(state).toEqual({ published: false, aborted: true });
    const [id, error, , guard] = jobs.fail.mock.calls[0];
    expect([id, error.code, guard]).toEqual([JOB_ID, FetCode.StreamMarksMoved, { workerId: expect.any(String), attempt: 1 }]);
    expect(error.message).toMatch(/^the marks of stream 'nightly' changed while the job ran \(pg_main\.orders\)/);
  });

  it('commits nothing for a job without a stream', async () => {
    job.incremental = null;
    job.streamName = null;
    expect(await service.process(JOB_ID, new AbortController().signal)).toBe('completed');
    expect(reads[0].range).toBeUndefined();
    expect(steps).toEqual([undefined]);
    expect(jobs.complete.mock.calls[0][3].payload).not.toHaveProperty('incremental');
  });
});
