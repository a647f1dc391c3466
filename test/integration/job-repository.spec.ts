import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { loadAppConfig } from '../../src/config/load-config.js';
import { OUTBOX_EVENT_ENTITY, type OutboxEventRecord } from '../../src/events/outbox.entity.js';
import { OutboxRepository } from '../../src/events/outbox.repository.js';
import { JOB_ENTITY, JOB_TRANSITION_ENTITY, type JobRecord, type JobTransitionRecord } from '../../src/job/job.entity.js';
import { JobRepository } from '../../src/job/job.repository.js';
import { JobStatus } from '../../src/job/job-status.js';
import { failedEvent } from '../../src/job/terminal-events.js';
import { failedColumns } from '../../src/job/transition-guard.js';
import { openDataSource } from '../../src/persistence/persistence.module.js';
import { storeOptions } from '../../src/bootstrap/store-schema.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { pendingJobRecord } from '../helpers/job-records.js';

function pendingJob(hash = uuidv7()): JobRecord {
  return pendingJobRecord({ productName: 'reporter', metadata: { source: 'reporter' }, mappedFields: { pg: { accounts: ['id'] } } }, hash);
}

const result = {
  resultPath: 'external-data/x.json',
  resultHmac: 'a'.repeat(64),
  resultKeyVersion: '1',
  resultSha256: 'b'.repeat(64),
  resultSizeBytes: 300_000_000,
  resultRowCount: 5,
  resultRowCounts: { pg: { accounts: 5 } },
};

describe.each(['sqlite', 'postgres'] as const)('JobRepository on %s', (kind) => {
  let dataSource: DataSource;
  let jobs: JobRepository;
  let pgDatabase: TempDatabase | undefined;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-jobs-'));
    if (kind === 'postgres') pgDatabase = await createTempDatabase('job_repository');
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      APP_ENC_KEY: TEST_MASTER_KEY,
      ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
    });
    // Twice: the second boot must find the schema migrated and change nothing.
    await (await openDataSource(storeOptions(config))).destroy();
    dataSource = await openDataSource(storeOptions(config));
    jobs = new JobRepository(dataSource, new OutboxRepository(dataSource));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await pgDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.claim(job.id, `worker-${i}`, 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const stored = (await jobs.findById(job.id)) as JobRecord;
    expect(stored).toMatchObject({ status: JobStatus.Processing, attempts: 1 });
    expect(stored.leaseExpiresAt?.getTime()).toBeGreaterThan(Date.now());
    // The winner got the job as the store now holds it, so it needs no second read.
    expect(claims.find(Boolean)).toEqual(stored);
  });

  it('refuses a second job with the same dedup key, and frees the key when the first fails', async () => {
    const first = pendingJob('dup-hash-' + kind);
    expect(await jobs.insertPending(first)).toBe(true);
    expect(await jobs.insertPending({ ...pendingJob(), requestHash: first.requestHash, dedupKey: first.dedupKey })).toBe(false);
    const error = { code: 'FET-1060', message: 'bad' };
    expect(await jobs.fail(first.id, error, failedEvent(first, error))).toBeInstanceOf(Date);
    expect(await jobs.insertPending({ ...pendingJob(), requestHash: first.requestHash, dedupKey: first.dedupKey })).toBe(true);
  });

  it('stamps a terminal change with one time: completed_at and updated_at are what fail() returns, or the completion time the worker gave', async () => {
    const failing = pendingJob();
    await jobs.insertPending(failing);
    const error = { code: 'FET-1105', message: 'cancelled' };
    const at = (await jobs.fail(failing.id, error, failedEvent(failing, error))) as Date;
    expect(at).toBeInstanceOf(Date);
    // What a caller shows without reading the row again (a cancel) is what the row holds.
    expect(await jobs.findById(failing.id)).toMatchObject(failedColumns(error, at));

    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    // The worker finished a moment before its commit; its job.completed event carries that time.
    const completedAt = new Date(Date.now() - 1_500);
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, { ...result, completedAt }, event)).toBe(true);
    expect(await jobs.findById(job.id)).toMatchObject({ status: JobStatus.Completed, completedAt, updatedAt: completedAt });
  });

  it('completes a job once, with its outbox event in the same transaction; terminal states never change', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    expect(await jobs.complete(job.id, { workerId: 'someone-else', attempt: 1 }, result, event)).toBe(false);
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event)).toBe(true);
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event)).toBe(false);
    const error = { code: 'FET-0002', message: 'late failure' };
    expect(await jobs.fail(job.id, error, failedEvent(job, error))).toBeNull();

    const stored = (await jobs.findById(job.id)) as JobRecord;
    expect(stored).toMatchObject({ status: JobStatus.Completed, ...result, error: null, leaseExpiresAt: null });
    const outbox = await dataSource.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).findBy({ jobId: job.id });
    expect(outbox.map((row) => row.id)).toEqual([`fetcher.job.completed.${job.id}`]);
  });

  it('refuses to complete for a claim whose lease ran out, even with no other claim yet, and publishes nothing', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    // The store was away: no renewal for a whole lease, and the sweep has not run yet.
    await dataSource.getRepository<JobRecord>(JOB_ENTITY).update({ id: job.id }, { leaseExpiresAt: new Date(Date.now() - 1) });
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    const published: string[] = [];
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event, async () => void published.push('late'))).toBe(false);
    expect(published).toEqual([]);
    expect((await jobs.findById(job.id))?.status).toBe(JobStatus.Processing);
    expect(await dataSource.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).findBy({ jobId: job.id })).toEqual([]);
    // Renewed in time, the same claim commits.
    expect(await jobs.renewLease(job.id, 'w1', 60_000)).toBe(true);
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event, async () => void published.push('live'))).toBe(true);
    expect(published).toEqual(['live']);
  });

  it('lets one of several racing commits and hand-backs of one claim win, with one transition and at most one event', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    const published: string[] = [];
    const outcomes = await Promise.all([
      jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event, async () => void published.push('a')),
      jobs.release(job.id, 'w1', 'shutdown'),
      jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event, async () => void published.push('b')),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const stored = (await jobs.findById(job.id)) as JobRecord;
    const outbox = await dataSource.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).findBy({ jobId: job.id });
    const transitions = await dataSource.getRepository<JobTransitionRecord>(JOB_TRANSITION_ENTITY).findBy({ jobId: job.id });
    if (outcomes[1]) {
      expect(stored.status).toBe(JobStatus.Pending);
      expect(published).toEqual([]);
      expect(outbox).toEqual([]);
    } else {
      expect(stored.status).toBe(JobStatus.Completed);
      expect(published).toHaveLength(1);
      expect(outbox.map((row) => row.id)).toEqual([event.id]);
    }
    // accepted, claimed, and the one change that won.
    expect(transitions.map((row) => row.toStatus).sort()).toEqual([JobStatus.Pending, JobStatus.Processing, stored.status].sort());
  });

  it('gives a job back to pending only for the worker that holds it', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    expect(await jobs.release(job.id, 'w2', 'test')).toBe(false);
    expect(await jobs.release(job.id, 'w1', 'test')).toBe(true);
    expect(await dataSource.getRepository<JobRecord>(JOB_ENTITY).findOneByOrFail({ id: job.id })).toMatchObject({
      status: JobStatus.Pending,
      workerId: null,
    });
  });

  it('does not count a job handed back at shutdown as a used attempt', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    await jobs.release(job.id, 'w1', 'worker shutting down');
    expect((await jobs.findById(job.id))?.attempts).toBe(0);
    await jobs.claim(job.id, 'w2', 60_000);
    expect((await jobs.findById(job.id))?.attempts).toBe(1);
  });

  it('commits only for the claim that holds the job, publishing inside the transaction', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    // w1's lease ran out; the sweep handed the job on and w1 (same worker id, re-delivered) claimed it again.
    await dataSource.getRepository<JobRecord>(JOB_ENTITY).update({ id: job.id }, { leaseExpiresAt: new Date(Date.now() - 1_000) });
    expect(await jobs.requeueExpired((await jobs.findById(job.id)) as JobRecord, new Date())).toBe(true);
    await jobs.claim(job.id, 'w1', 60_000);
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    const published: string[] = [];
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event, async () => void published.push('stale'))).toBe(
      false,
    );
    expect(published).toEqual([]);

    // A publish that fails leaves the job as it was: still processing, no event.
    const failing = async () => {
      throw new Error('copy failed');
    };
    await expect(jobs.complete(job.id, { workerId: 'w1', attempt: 2 }, result, event, failing)).rejects.toThrow('copy failed');
    expect((await jobs.findById(job.id))?.status).toBe(JobStatus.Processing);
    expect(await dataSource.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).findBy({ jobId: job.id })).toEqual([]);

    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 2 }, result, event, async () => void published.push('current'))).toBe(
      true,
    );
    expect(published).toEqual(['current']);
    expect((await jobs.findById(job.id))?.status).toBe(JobStatus.Completed);
  });

  it('shows no reader the job completed before its result is published', async () => {
    const job = pendingJob();
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    const seenWhilePublishing: string[] = [];
    const publish = async () => {
      // A status poll that arrives while the object is being moved into place (SQLite: the same connection).
      for (let read = 0; read < 3; read += 1) {
        seenWhilePublishing.push(((await jobs.findById(job.id)) as JobRecord).status);
        await new Promise((done) => setTimeout(done, 20));
      }
    };
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, result, event, publish)).toBe(true);
    expect(seenWhilePublishing).toEqual([JobStatus.Processing, JobStatus.Processing, JobStatus.Processing]);
    expect((await jobs.findById(job.id))?.status).toBe(JobStatus.Completed);
  });

  it('stores an output and a per-table result’s parts, and reads them back as written', async () => {
    const job = { ...pendingJob(), output: { format: 'csv', compression: 'gzip' } as const };
    await jobs.insertPending(job);
    await jobs.claim(job.id, 'w1', 60_000);
    const parts = ['accounting.invoices', 'accounts'].map((table, index) => ({
      datasource: 'pg',
      table,
      path: `external-data/${job.id}/pg/${table}.csv.gz`,
      format: 'csv' as const,
      compression: 'gzip' as const,
      sizeBytes: 100 + index,
      rowCount: 2 + index,
      sha256: String(index).repeat(64),
      hmac: 'f'.repeat(64),
    }));
    const event = { id: `fetcher.job.completed.${job.id}`, eventType: 'job.completed', payload: { jobId: job.id } };
    expect(await jobs.complete(job.id, { workerId: 'w1', attempt: 1 }, { ...result, resultParts: parts }, event)).toBe(true);
    const stored = (await jobs.findById(job.id)) as JobRecord;
    expect(stored.output).toEqual({ format: 'csv', compression: 'gzip' });
    expect(stored.resultParts).toEqual(parts);
    // A job of the default output stores none, and a one-object result no parts.
    const plain = pendingJob();
    await jobs.insertPending(plain);
    expect(await jobs.findById(plain.id)).toMatchObject({ output: null, resultParts: null });
  });
});
