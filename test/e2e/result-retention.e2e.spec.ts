import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/config/load-config.js';
import { ResultRetentionSweep } from '../../src/job/retention/result-retention.sweep.js';
import { createObjectStore } from '../../src/storage/object-store.factory.js';
import { OBJECT_STORE, type ObjectStore } from '../../src/storage/object-store.port.js';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, TEST_MASTER_KEY, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTempDatabase, internalPostgresEnv, type TempDatabase } from '../helpers/pg-database.js';
import { s3rverEnv, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const RETENTION_SECONDS = 3600;

/**
 * Deleting results: by their product (DELETE …/result) and by the retention sweep, against
 * PostgreSQL (job store), Redis (queue) and s3rver (results). A deletion is two recorded steps; a
 * crash or a store failure between them is finished by the next sweep.
 */
describe('result deletion and retention', () => {
  let store: TempDatabase;
  let source: TempDatabase;
  let s3: S3rverHandle;
  let s3client: Client;
  let fetcher: EmbeddedFetcher;
  let alpha: string;
  let beta: string;
  let storeDeleteFails = false;
  const keyPrefix = `retention-${randomUUID().slice(0, 8)}/`;

  beforeAll(async () => {
    [store, source] = await Promise.all([createTempDatabase('e2e_retention_store'), createTempDatabase('e2e_retention_source')]);
    await source.query(`CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL);
      INSERT INTO items SELECT g, 'item-' || g FROM generate_series(1, 50) g;
      CREATE VIEW slow_items AS SELECT id, pg_sleep(0.5)::text AS waited FROM items;`);
    s3 = await startS3rver({ bucket: 'fetcher-retention' });
    s3client = new Client({
      endPoint: s3.endPoint,
      port: s3.port,
      useSSL: false,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      pathStyle: true,
    });
    const env = {
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: ADMIN,
      DATABASE_URL: store.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `fetcher-retention-${randomUUID().slice(0, 8)}`,
      ...s3rverEnv(s3, keyPrefix),
      RESULT_RETENTION_SECONDS: String(RETENTION_SECONDS),
      ...internalPostgresEnv('src', source),
    };
    // The real S3 store, whose delete can be made to fail: a store outage between the two steps.
    const real = await createObjectStore(loadAppConfig({ APP_ENC_KEY: TEST_MASTER_KEY, NODE_ENV: 'test', ...env }).storage);
    const faulty = new Proxy(real, {
      get(target, property, receiver) {
        if (property === 'delete' && storeDeleteFails) return () => Promise.reject(new Error('injected: the store is unreachable'));
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as ObjectStore;
    fetcher = await startEmbeddedFetcher(env, { overrides: [[OBJECT_STORE, faulty]] });
    const issue = async (productName: string) =>
      (await fetcher.http.post('/v1/management/api-keys').set(bearer(ADMIN)).send({ productName, name: 'e2e' })).body.key as string;
    [alpha, beta] = await Promise.all([issue('alpha'), issue('beta')]);
  }, 60_000);

  afterAll(async () => {
    await fetcher?.close();
    await s3?.close();
    await Promise.all([store?.drop(), source?.drop()]);
  });

  const sweep = (now?: Date) => fetcher.app.get(ResultRetentionSweep).sweep(now);
  const objectKey = (jobId: string) => `${keyPrefix}external-data/${jobId}.json`;

  async function objectExists(jobId: string): Promise<boolean> {
    try {
      await s3client.statObject(s3.bucket, objectKey(jobId));
      return true;
    } catch {
      return false;
    }
  }

  async function completedJob(tag = randomUUID(), table = 'items'): Promise<string> {
    const submitted = await fetcher.http
      .post('/v1/fetcher')
      .set(bearer(alpha))
      .send({ dataRequest: { mappedFields: { src: { [table]: ['*'] } } }, metadata: { source: 'alpha', tag } });
    expect(submitted.status).toBe(202);
    const job = await finished(submitted.body.jobId);
    expect(job.status).toBe('completed');
    expect(await objectExists(job.id)).toBe(true);
    return job.id;
  }

  async function finished(jobId: string): Promise<Record<string, any>> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const job = await getJob(jobId);
      if (job.status === 'completed' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  const getJob = async (jobId: string) => (await fetcher.http.get(`/v1/fetcher/${jobId}`).set(bearer(alpha))).body as Record<string, any>;
  const deletionColumns = async (jobId: string) =>
    (
      await store.query<{ requested: Date | null; deleted: Date | null }>(
        `SELECT result_delete_requested_at AS requested, result_deleted_at AS deleted FROM jobs WHERE id = $1`,
        [jobId],
      )
    ).rows[0];

  it('DELETE removes the object, records resultDeletedAt, GET result answers 410, and deleting again is 204', async () => {
    const tag = randomUUID();
    const jobId = await completedJob(tag);
    const deleted = await fetcher.http.delete(`/v1/fetcher/${jobId}/result`).set(bearer(alpha));
    expect(deleted.status).toBe(204);
    expect(await objectExists(jobId)).toBe(false);
    const job = await getJob(jobId);
    expect(job.status).toBe('completed');
    expect(Date.parse(job.resultDeletedAt)).toBeGreaterThan(0);
    expect((await deletionColumns(jobId)).deleted).not.toBeNull();
    const gone = await fetcher.http.get(`/v1/fetcher/${jobId}/result`).set(bearer(alpha));
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'FET-1109' });
    expect((await fetcher.http.delete(`/v1/fetcher/${jobId}/result`).set(bearer(alpha))).status).toBe(204);

    // The same request again is a new extraction, not a duplicate of the job whose result is gone.
    const again = await fetcher.http
      .post('/v1/fetcher')
      .set(bearer(alpha))
      .send({ dataRequest: { mappedFields: { src: { items: ['*'] } } }, metadata: { source: 'alpha', tag } });
    expect(again.status).toBe(202);
    expect(again.body.jobId).not.toBe(jobId);
    expect((await finished(again.body.jobId)).status).toBe('completed');
  });

  it('lets only the owning product or the operator delete, and only a completed job’s result', async () => {
    const jobId = await completedJob();
    expect((await fetcher.http.delete(`/v1/fetcher/${jobId}/result`)).status).toBe(401);
    const other = await fetcher.http.delete(`/v1/fetcher/${jobId}/result`).set(bearer(beta));
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'FET-1001' });
    expect(await objectExists(jobId)).toBe(true);
    expect((await fetcher.http.delete(`/v1/fetcher/${randomUUID()}/result`).set(bearer(alpha))).status).toBe(404);
    expect((await fetcher.http.delete('/v1/fetcher/nope/result').set(bearer(alpha))).body).toMatchObject({ code: 'FET-0404' });
    expect((await fetcher.http.delete(`/v1/fetcher/${jobId}/result`).set(bearer(ADMIN))).status).toBe(204);
    expect(await objectExists(jobId)).toBe(false);

    const running = await fetcher.http
      .post('/v1/fetcher')
      .set(bearer(alpha))
      .send({ dataRequest: { mappedFields: { src: { slow_items: ['id'] } } }, metadata: { source: 'alpha' } });
    const notYet = await fetcher.http.delete(`/v1/fetcher/${running.body.jobId}/result`).set(bearer(alpha));
    expect(notYet.status).toBe(409);
    expect(notYet.body).toMatchObject({ code: 'FET-1108' });
    expect((await fetcher.http.post(`/v1/fetcher/${running.body.jobId}/cancel`).set(bearer(alpha))).status).toBe(200);
  });

  it('finishes a deletion a crash interrupted after its first step, at the next sweep', async () => {
    const jobId = await completedJob();
    // What a process that died right after recording the intent leaves behind.
    await store.query(`UPDATE jobs SET result_delete_requested_at = now() WHERE id = $1`, [jobId]);
    expect((await fetcher.http.get(`/v1/fetcher/${jobId}/result`).set(bearer(alpha))).status).toBe(410);
    expect(await objectExists(jobId)).toBe(true);

    await sweep();
    expect(await objectExists(jobId)).toBe(false);
    expect((await deletionColumns(jobId)).deleted).not.toBeNull();
  });

  it('answers 503 when the store fails mid-deletion, keeps the result gone for consumers, and the sweep finishes it', async () => {
    const jobId = await completedJob();
    storeDeleteFails = true;
    try {
      const failed = await fetcher.http.delete(`/v1/fetcher/${jobId}/result`).set(bearer(alpha));
      expect(failed.status).toBe(503);
      expect(failed.body).toMatchObject({ code: 'FET-0003' });
      expect(JSON.stringify(failed.body)).not.toContain('injected');
      expect(await objectExists(jobId)).toBe(true);
      expect(await deletionColumns(jobId)).toMatchObject({ deleted: null });
      expect((await fetcher.http.get(`/v1/fetcher/${jobId}/result`).set(bearer(alpha))).status).toBe(410);
      // A sweep while the store is still down leaves the intent for the next one.
      await sweep();
      expect(await deletionColumns(jobId)).toMatchObject({ deleted: null });
    } finally {
      storeDeleteFails = false;
    }
    await sweep();
    expect(await objectExists(jobId)).toBe(false);
    expect((await deletionColumns(jobId)).deleted).not.toBeNull();
  });

  it('treats a result past its retention as deleted before the sweep: 410, and the same request extracts again', async () => {
    const tag = randomUUID();
    const expired = await completedJob(tag);
    await store.query(`UPDATE jobs SET completed_at = now() - interval '${RETENTION_SECONDS + 60} seconds' WHERE id = $1`, [expired]);
    expect((await fetcher.http.get(`/v1/fetcher/${expired}/result`).set(bearer(alpha))).status).toBe(410);

    const again = await fetcher.http
      .post('/v1/fetcher')
      .set(bearer(alpha))
      .send({ dataRequest: { mappedFields: { src: { items: ['*'] } } }, metadata: { source: 'alpha', tag } });
    expect(again.status).toBe(202);
    expect(again.body.jobId).not.toBe(expired);
    expect((await finished(again.body.jobId)).status).toBe('completed');
    // The expired job's deletion is now recorded, and the sweep finishes it.
    expect((await deletionColumns(expired)).requested).not.toBeNull();
    await sweep();
    expect(await objectExists(expired)).toBe(false);
    expect((await deletionColumns(expired)).deleted).not.toBeNull();
  });

  it('deletes results past RESULT_RETENTION_SECONDS and keeps younger ones', async () => {
    const older = await completedJob();
    await store.query(`UPDATE jobs SET completed_at = now() - interval '${RETENTION_SECONDS + 60} seconds' WHERE id = $1`, [older]);
    const younger = await completedJob();

    await sweep();
    expect(await objectExists(older)).toBe(false);
    expect((await getJob(older)).resultDeletedAt).toBeDefined();
    expect((await fetcher.http.get(`/v1/fetcher/${older}/result`).set(bearer(alpha))).status).toBe(410);
    expect(await objectExists(younger)).toBe(true);
    expect((await getJob(younger)).resultDeletedAt).toBeUndefined();
  });
});
