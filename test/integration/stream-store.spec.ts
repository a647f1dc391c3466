import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { loadAppConfig } from '../../src/config/load-config.js';
import { FetCode } from '../../src/engine/errors/fet-code.js';
import type { IncrementalOutcome, StreamMarks } from '../../src/engine/request/incremental-request.js';
import { OUTBOX_EVENT_ENTITY, type OutboxEventRecord } from '../../src/events/outbox.entity.js';
import { OutboxRepository } from '../../src/events/outbox.repository.js';
import type { JobIncremental, JobRecord } from '../../src/job/job.entity.js';
import { JobRepository } from '../../src/job/job.repository.js';
import { JobStatus } from '../../src/job/job-status.js';
import { failedEvent } from '../../src/job/terminal-events.js';
import { openDataSource } from '../../src/persistence/persistence.module.js';
import { storeOptions } from '../../src/bootstrap/store-schema.js';
import { STREAM_ENTITY, type StoredMarks, type StreamRecord } from '../../src/stream/stream.entity.js';
import { StreamRepository } from '../../src/stream/stream.repository.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { pendingJobRecord } from '../helpers/job-records.js';

const PRODUCT = `it_streams_${randomBytes(3).toString('hex')}`;
const mark = (value: string) => ({ column: 'id', type: 'integer' as const, value });

function streamJob(stream: string | null, from: StreamMarks = {}, hash = uuidv7()): JobRecord {
  const incremental: JobIncremental | null = stream === null ? null : { stream, cursors: { pg: { orders: 'id' } }, from };
  const mappedFields = { pg: { orders: ['id'] } };
  return pendingJobRecord({ productName: PRODUCT, metadata: { source: PRODUCT }, mappedFields, streamName: stream, incremental }, hash);
}

const outcome = (from: string | null, to: string): IncrementalOutcome => ({
  stream: 'unused',
  tables: { pg: { orders: { column: 'id', type: 'integer', from, fromInclusive: false, to, rows: 3 } } },
  marks: { pg: { orders: mark(to) } },
});

/** The rejection's FET code, or 'resolved'. */
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => String(error.code),
  );

/**
 * The stream store on both job stores: the partial unique index that keeps one job of a stream
 * active, told apart from the dedup key; marks committed in the completion's own transaction, with
 * its compare-and-set against a PUT or DELETE; PUT and DELETE refused while a job is active.
 */
describe.each(['sqlite', 'postgres'] as const)('streams on %s', (kind) => {
  let dataSource: DataSource;
  let jobs: JobRepository;
  let streams: StreamRepository;
  let pgDatabase: TempDatabase | undefined;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-streams-'));
    if (kind === 'postgres') pgDatabase = await createTempDatabase('it_stream_store');
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      APP_ENC_KEY: TEST_MASTER_KEY,
      ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
    });
    dataSource = await openDataSource(storeOptions(config));
    jobs = new JobRepository(dataSource, new OutboxRepository(dataSource));
    streams = new StreamRepository(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await pgDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const running = async (stream: string, from: StreamMarks = {}) => {
    const job = streamJob(stream, from);
    expect(await jobs.insertPending(job)).toBe(true);
    expect(await jobs.claim(job.id, 'w1', 60_000)).toMatchObject({ id: job.id, status: JobStatus.Processing });
    return job;
  };
  /**
   * A PUT that checked the stream idle, then wrote after a job was submitted (from the marks before
   * it): PUT and DELETE refuse an active job, so only the commit's compare can see this one.
   */
  const writeBehindTheCheck = async (name: string, marks: StoredMarks) => {
    const now = new Date();
    await dataSource
      .getRepository<StreamRecord>(STREAM_ENTITY)
      .save({ productName: PRODUCT, name, marks, lastJobId: null, createdAt: now, updatedAt: now });
  };
  const event = (job: JobRecord) => ({ id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } });
  const result = {
    resultPath: 'external-data/x.json',
    resultHmac: 'a'.repeat(64),
    resultKeyVersion: '1',
    resultSha256: 'b'.repeat(64),
    resultSizeBytes: 10,
    resultRowCount: 3,
    resultRowCounts: { pg: { orders: 3 } },
  };
  /** Completes `job` as the worker does: the marks committed before the publish, in the completion's transaction. */
  const complete = (job: JobRecord, read: IncrementalOutcome, publish?: () => Promise<void>) =>
    jobs.complete(
      job.id,
      { workerId: 'w1', attempt: 1 },
      { ...result, incremental: { ...(job.incremental as JobIncremental), tables: read.tables } },
      event(job),
      publish,
      undefined,
      (manager) =>
        streams.commitMarks(
          manager,
          { productName: PRODUCT, stream: job.streamName as string, jobId: job.id, from: job.incremental?.from ?? {}, outcome: read },
          new Date(),
        ),
    );

  it('lets one job of a stream be active at a time (409 FET-1111 naming it), told apart from a dedup twin', async () => {
    const stream = `busy-${kind}`;
    const first = streamJob(stream);
    expect(await jobs.insertPending(first)).toBe(true);
    const second = streamJob(stream);
    const refused = await jobs.insertPending(second).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused).toMatchObject({ code: FetCode.StreamBusy, extra: { jobId: first.id } });
    expect(refused?.message).toBe(`stream '${stream}' has job ${first.id} pending; wait for it or cancel it`);
    // The same dedup key is a twin, not a busy stream, whatever the stream.
    expect(await jobs.insertPending({ ...streamJob(stream), requestHash: first.requestHash, dedupKey: first.dedupKey })).toBe(false);
    // Other streams, other products and jobs without a stream are not held up.
    expect(await jobs.insertPending(streamJob(`${stream}-other`))).toBe(true);
    expect(await jobs.insertPending({ ...streamJob(stream), productName: `${PRODUCT}_b` })).toBe(true);
    expect(await jobs.insertPending(streamJob(null))).toBe(true);
    expect(await jobs.insertPending(streamJob(null))).toBe(true);

    await jobs.claim(first.id, 'w1', 60_000);
    expect(await codeOf(jobs.insertPending(streamJob(stream)))).toBe(FetCode.StreamBusy);
    const error = { code: FetCode.ExtractionCancelled, message: 'cancelled' };
    expect(await jobs.fail(first.id, error, failedEvent(first, error))).toBeInstanceOf(Date);
    expect(await jobs.insertPending(second)).toBe(true);
  });

  it('commits the marks with the completion, creating the stream, then merges those of the next job', async () => {
    const stream = `commit-${kind}`;
    const first = await running(stream);
    expect(await complete(first, outcome(null, '20'))).toBe(true);
    expect(await streams.find(PRODUCT, stream)).toMatchObject({ marks: { pg: { orders: mark('20') } }, lastJobId: first.id });
    expect((await jobs.findById(first.id))?.incremental).toEqual({ ...first.incremental, tables: outcome(null, '20').tables });

    // A PUT adds another table's mark; the next job of orders leaves it alone.
    await streams.replaceMarks(PRODUCT, stream, { pg: { orders: mark('20'), customers: mark('7') } }, new Date());
    const second = await running(stream, { pg: { orders: mark('20') } });
    expect(await complete(second, outcome('20', '25'))).toBe(true);
    const stored = await streams.find(PRODUCT, stream);
    expect(stored).toMatchObject({ marks: { pg: { orders: mark('25'), customers: mark('7') } }, lastJobId: second.id });
    expect(stored?.createdAt.getTime()).toBeLessThan((stored as { updatedAt: Date }).updatedAt.getTime() + 1);
  });

  it('fails the completion with FET-1112 when the marks moved under the job: job still processing, marks as put, nothing published', async () => {
    const stream = `moved-${kind}`;
    await streams.replaceMarks(PRODUCT, stream, { pg: { orders: mark('10') } }, new Date());
    const job = streamJob(stream, { pg: { orders: mark('10') } });
    await jobs.insertPending(job);
    await writeBehindTheCheck(stream, { pg: { orders: mark('3') } });
    await jobs.claim(job.id, 'w1', 60_000);
    const published: string[] = [];
    const refused = complete(job, outcome('10', '30'), async () => void published.push('published'));
    await expect(refused).rejects.toMatchObject({ code: FetCode.StreamMarksMoved });
    await expect(refused).rejects.toThrow(`the marks of stream '${stream}' changed while the job ran (pg.orders)`);
    expect(published).toEqual([]);
    expect((await jobs.findById(job.id))?.status).toBe(JobStatus.Processing);
    expect((await jobs.findById(job.id))?.incremental?.tables).toBeUndefined();
    expect(await dataSource.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).findBy({ jobId: job.id })).toEqual([]);
    expect((await streams.find(PRODUCT, stream))?.marks).toEqual({ pg: { orders: mark('3') } });
  });

  it('commits over a stream created meanwhile with no mark of its tables, and fails a commit after a reset', async () => {
    const created = `created-${kind}`;
    const first = await running(created);
    await writeBehindTheCheck(created, {});
    expect(await complete(first, outcome(null, '5'))).toBe(true);
    // An empty PUT holds no mark of orders: the job that found none still finds none, and commits.
    expect((await streams.find(PRODUCT, created))?.marks).toEqual({ pg: { orders: mark('5') } });

    const reset = `reset-${kind}`;
    await streams.replaceMarks(PRODUCT, reset, { pg: { orders: mark('10') } }, new Date());
    const second = await running(reset, { pg: { orders: mark('10') } });
    // A DELETE whose check ran before the job was submitted.
    await dataSource.getRepository<StreamRecord>(STREAM_ENTITY).delete({ productName: PRODUCT, name: reset });
    expect(await codeOf(complete(second, outcome('10', '12')))).toBe(FetCode.StreamMarksMoved);
    expect(await streams.find(PRODUCT, reset)).toBeNull();
  });

  it('refuses PUT and DELETE with FET-1111 while a job of the stream is pending or processing', async () => {
    const stream = `guarded-${kind}`;
    await streams.replaceMarks(PRODUCT, stream, { pg: { orders: mark('1') } }, new Date());
    const job = streamJob(stream, { pg: { orders: mark('1') } });
    await jobs.insertPending(job);
    expect(await codeOf(streams.replaceMarks(PRODUCT, stream, {}, new Date()))).toBe(FetCode.StreamBusy);
    expect(await codeOf(streams.remove(PRODUCT, stream))).toBe(FetCode.StreamBusy);
    await jobs.claim(job.id, 'w1', 60_000);
    expect(await codeOf(streams.remove(PRODUCT, stream))).toBe(FetCode.StreamBusy);
    expect(await streams.activeJob(PRODUCT, stream)).toEqual({ id: job.id, status: 'processing' });
    expect(await complete(job, outcome('1', '2'))).toBe(true);
    expect(await streams.activeJob(PRODUCT, stream)).toBeNull();
    const put = await streams.replaceMarks(PRODUCT, stream, { pg: { orders: mark('0') } }, new Date());
    expect(put).toMatchObject({ marks: { pg: { orders: mark('0') } }, lastJobId: null });
    expect(await streams.remove(PRODUCT, stream)).toBe(true);
    expect(await streams.remove(PRODUCT, stream)).toBe(false);
  });

  it('lists streams by product, in (product, name) order, with an exact total', async () => {
    const other = `${PRODUCT}_list`;
    for (const name of ['b', 'a', 'c']) await streams.replaceMarks(other, name, { pg: { orders: mark(name) } }, new Date());
    const page = await streams.list([other], { skip: 1, take: 1 });
    expect(page.total).toBe(3);
    expect(page.items.map((item) => item.name)).toEqual(['b']);
    expect((await streams.list([], { skip: 0, take: 10 })).total).toBe(0);
    expect((await streams.list(undefined, { skip: 0, take: 100 })).items.map((item) => item.productName)).toContain(other);
  });
});
