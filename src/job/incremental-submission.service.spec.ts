import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import type { AppConfig } from '../config/app-config.js';
import type { ConnectionRepository } from '../datasource/connection.repository.js';
import type { ConnectionTester } from '../datasource/connection-tester.service.js';
import type { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import type { SchemaService } from '../datasource/schema/schema.service.js';
import type { TableInfo } from '../engine/connectors/shared/engine-connector.js';
import { createEngine } from '../engine/engine.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { DEFAULT_CEILINGS } from '../engine/request/data-request.js';
import type { IncrementalRequest } from '../engine/request/incremental-request.js';
import { scriptedConnector } from '../engine/testing/scripted-engine.js';
import type { StreamRecord } from '../stream/stream.entity.js';
import { streamBusy } from '../stream/stream.error.js';
import type { StreamRepository } from '../stream/stream.repository.js';
import type { CreateJobDto } from './dto/create-job.dto.js';
import { IncrementalSubmission } from './incremental-submission.service.js';
import type { JobRecord } from './job.entity.js';
import type { JobRepository } from './job.repository.js';
import { JobService } from './job.service.js';
import type { JobQueue } from './queue/job-queue.port.js';
import type { ResultRetentionRepository } from './retention/result-retention.repository.js';
import { serviceDatasource } from '../datasource/testing/service-datasources.js';

const REPORTER: Principal = { id: 'apikey:reporter', method: 'apikey', operator: false, products: ['reporter'] };
const ORDERS: TableInfo = {
  schema: 'public',
  name: 'orders',
  key: 'orders',
  columns: [
    { name: 'id', dataType: 'int8' },
    { name: 'note', dataType: 'text' },
    { name: 'score', dataType: 'float8' },
    { name: 'placed_at', dataType: 'timestamptz' },
  ],
  primaryKey: ['id'],
};
const PG = serviceDatasource('pg', { id: 'c1', host: 'db.example.com' });
const mark = (value: string) => ({ column: 'id', type: 'integer' as const, value });
const KINDS: Record<string, 'integer' | 'timestamptz'> = { int8: 'integer', timestamptz: 'timestamptz' };

function request(incremental: Partial<IncrementalRequest> = {}, correlationId = 'c-1'): CreateJobDto {
  return {
    metadata: { source: 'reporter', correlationId },
    dataRequest: {
      mappedFields: { pg: { 'public.orders': ['id', 'note'] } },
      incremental: { stream: 'nightly', cursors: { pg: { 'public.orders': 'id' } }, ...incremental },
    },
  } as CreateJobDto;
}

/**
 * A stream's job at submission: the marks it starts from (under each table's result key), its
 * cursors checked against the schema before it is accepted, its hash moving with the marks, and
 * a busy stream told apart from a duplicate.
 */
describe('JobService with dataRequest.incremental', () => {
  let stored: StreamRecord | null;
  let rows: Map<string, JobRecord>;
  let insert: ReturnType<typeof vi.fn>;
  let discover: ReturnType<typeof vi.fn>;
  let service: JobService;

  beforeEach(() => {
    vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    stored = null;
    rows = new Map();
    insert = vi.fn(async (job: JobRecord) => {
      if ([...rows.values()].some((held) => held.dedupKey === job.dedupKey)) return false;
      rows.set(job.id, { ...job });
      return true;
    });
    const jobs = {
      insertPending: insert,
      findNewestByHash: async (hash: string) => [...rows.values()].find((job) => job.requestHash === hash) ?? null,
      findByDedupKey: async (key: string) => [...rows.values()].find((job) => job.dedupKey === key) ?? null,
    };
    discover = vi.fn(async () => ({ tables: new Map([['orders', ORDERS]]) }));
    const engine = createEngine({
      connectors: [{ ...scriptedConnector(async () => ({}) as never), cursorKind: (column) => KINDS[column.dataType] ?? null }],
    });
    const submission = new IncrementalSubmission(
      engine,
      { discoverCached: discover } as unknown as SchemaService,
      { findByIds: async () => [{ id: 'c1', updatedAt: new Date(7) }] } as unknown as ConnectionRepository,
      { find: async (product: string, name: string) => (product === 'reporter' && name === 'nightly' ? stored : null) } as StreamRepository,
    );
    service = new JobService(
      { extraction: DEFAULT_CEILINGS, jobs: { dedupWindowSeconds: 300, connectionTestTimeoutMs: 4_000 }, results: {} } as AppConfig,
      jobs as unknown as JobRepository,
      { resolve: async () => new Map([['pg', PG]]) } as unknown as DatasourceResolver,
      { test: async () => ({ ok: true, latencyMs: 1 }) } as unknown as ConnectionTester,
      { enqueue: async () => undefined } as unknown as JobQueue,
      {} as ResultRetentionRepository,
      new ManualClock('2026-03-01T10:00:00.000Z'),
      new SequentialIdGenerator(),
      submission,
    );
  });
  afterEach(() => vi.restoreAllMocks());

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { code: string; message: string; fields?: Record<string, string>; details?: unknown[] }) => error,
    );

  it('records the stream, the marks it starts from by result key, and the ranges as planned', async () => {
    stored = { marks: { pg: { orders: mark('41'), customers: mark('9') } } } as unknown as StreamRecord;
    const outcome = await service.create(request(), REPORTER);
    const job = rows.get(outcome.body.jobId) as JobRecord;
    expect(job.streamName).toBe('nightly');
    // Only the job's own cursor tables: another table's mark is not the job's to start from.
    expect(job.incremental).toEqual({
      stream: 'nightly',
      cursors: { pg: { 'public.orders': 'id' } },
      from: { pg: { orders: mark('41') } },
      tables: { pg: { orders: { column: 'id', type: 'integer', from: '41', fromInclusive: false, to: null, rows: null } } },
    });
    // The schema came cache-first, versioned by the connection as validate-schema keys it.
    expect(discover).toHaveBeenCalledWith(PG, 7, ['public']);
  });

  it('answers a repeat with unmoved marks with the same job, and makes a new job once they moved', async () => {
    const first = await service.create(request(), REPORTER);
    expect((await service.create(request(), REPORTER)).body.jobId).toBe(first.body.jobId);
    stored = { marks: { pg: { orders: mark('50') } } } as unknown as StreamRecord;
    const moved = await service.create(request(), REPORTER);
    expect(moved.duplicate).toBe(false);
    expect(rows.get(moved.body.jobId)?.incremental?.from).toEqual({ pg: { orders: mark('50') } });
    expect(rows.get(moved.body.jobId)?.requestHash).not.toBe(rows.get(first.body.jobId)?.requestHash);
  });

  it('answers 409 FET-1111 when the stream has another active job, and a twin the store reports as its duplicate', async () => {
    insert.mockRejectedValueOnce(streamBusy('nightly', { id: 'job-0', status: 'processing' }));
    expect(await refusal(service.create(request(), REPORTER))).toMatchObject({
      code: FetCode.StreamBusy,
      message: "stream 'nightly' has job job-0 processing; wait for it or cancel it",
    });
    const first = await service.create(request({}, 'c-2'), REPORTER);
    // A concurrent twin: the dedup check missed it, the store's dedup key did not.
    insert.mockResolvedValueOnce(false);
    const twin = await service.create(request({}, 'c-2'), REPORTER);
    expect(twin).toMatchObject({ duplicate: true, body: { jobId: first.body.jobId } });
  });

  it.each([
    [
      'a cursor on a text column',
      { cursors: { pg: { 'public.orders': 'note' } } },
      'dataRequest.incremental.cursors.pg.public.orders',
      /\(text\) cannot be a cursor/,
    ],
    [
      'a cursor on a float column',
      { cursors: { pg: { 'public.orders': 'score' } } },
      'dataRequest.incremental.cursors.pg.public.orders',
      /\(float8\)/,
    ],
    [
      'a cursor on a column not in the table',
      { cursors: { pg: { 'public.orders': 'nope' } } },
      'dataRequest.incremental.cursors.pg.public.orders',
      /no column 'nope'/,
    ],
    [
      'lagSeconds on an integer cursor',
      { lagSeconds: 60 },
      'dataRequest.incremental.lagSeconds',
      /lagSeconds applies to date and timestamp/,
    ],
  ])('refuses %s with 400 FET-0401 naming the member, before recording anything', async (_, incremental, path, message) => {
    const error = await refusal(service.create(request(incremental), REPORTER));
    expect(error?.code).toBe(FetCode.InvalidDataRequest);
    expect(Object.keys(error?.fields ?? {})).toEqual([path]);
    expect(error?.message).toMatch(message);
    expect(rows.size).toBe(0);
  });

  it('refuses a cursor whose stream follows the table by another column (reset first), and lists unknown fields as a 422', async () => {
    stored = { marks: { pg: { orders: { column: 'placed_at', type: 'timestamptz', value: '2026-01-01T00:00:00Z' } } } } as never;
    expect(await refusal(service.create(request(), REPORTER))).toMatchObject({
      code: FetCode.InvalidDataRequest,
      details: [expect.objectContaining({ type: 'cursor_mismatch' })],
    });
    stored = null;
    const unknown = { ...request(), dataRequest: { ...request().dataRequest, mappedFields: { pg: { 'public.orders': ['id', 'ghost'] } } } };
    expect(await refusal(service.create(unknown as CreateJobDto, REPORTER))).toMatchObject({
      code: FetCode.SchemaValidationFailed,
      details: [{ type: 'field_not_found', datasource: 'pg', table: 'orders', field: 'ghost' }],
    });
  });

  it('leaves a datasource it cannot discover now to planning, which checks the same again', async () => {
    discover.mockRejectedValueOnce(new Error('connection reset'));
    const outcome = await service.create(request({ cursors: { pg: { 'public.orders': 'note' } } }), REPORTER);
    expect(rows.get(outcome.body.jobId)?.incremental?.tables).toEqual({});
  });
});
