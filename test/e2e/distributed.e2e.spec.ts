import { randomUUID } from 'node:crypto';
import { Client } from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase } from '../helpers/pg-database.js';
import { decodeStoredResult } from '../helpers/result-decoder.js';
import { s3rverEnv, startS3rver, type S3rverHandle } from '../helpers/s3rver.js';
import { ACCOUNTS_ROWS, INVOICE_ROWS, SOURCE_FIXTURE_SQL } from '../helpers/source-fixtures.js';

type TempDb = Awaited<ReturnType<typeof createTempDatabase>>;

/**
 * Acceptance for the distributed deployment: a Manager process and a Worker process built from
 * dist/, sharing PostgreSQL (jobs), Redis (BullMQ) and an S3 server (s3rver).
 */
describe('distributed mode: manager and worker processes, PostgreSQL + Redis + S3', () => {
  let store: TempDb;
  let source: TempDb;
  let s3: S3rverHandle;
  let manager: FetcherProcess;
  let worker: FetcherProcess;
  let s3client: Client;
  const keyPrefix = 'tenant-a/';

  beforeAll(async () => {
    [store, source] = await Promise.all([createTempDatabase('e2e_store'), createTempDatabase('e2e_source')]);
    await source.query(SOURCE_FIXTURE_SQL);
    await source.query(
      `CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL);
       INSERT INTO big SELECT g, repeat(md5(g::text), 2) FROM generate_series(1, 200000) g;`,
    );
    s3 = await startS3rver({ bucket: 'fetcher-results' });
    s3client = new Client({
      endPoint: s3.endPoint,
      port: s3.port,
      useSSL: false,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      pathStyle: true,
    });
    const [managerPort, workerPort] = [await freePort(), await freePort()];
    const env = {
      APP_ENC_KEY: TEST_MASTER_KEY,
      DATABASE_URL: store.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `fetcher-test-${randomUUID().slice(0, 8)}`,
      ...s3rverEnv(s3, keyPrefix),
      S3_PART_SIZE_MB: '5',
      LOG_LEVEL: 'log',
      PORT: String(managerPort),
      WORKER_HTTP_PORT: String(workerPort),
    };
    // Both boot against an empty store at once: migrations must serialise.
    [manager, worker] = await Promise.all([
      startFetcherProcess({ ...env, FETCHER_ROLE: 'manager' }, managerPort),
      startFetcherProcess({ ...env, FETCHER_ROLE: 'worker' }, workerPort),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([manager?.stop(), worker?.stop()]);
    await s3?.close();
    await Promise.all([store?.drop(), source?.drop()]);
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${manager.url}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });

  async function waitForJob(jobId: string): Promise<Record<string, any>> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = (await (await api(`/v1/fetcher/${jobId}`)).json()) as Record<string, any>;
      if (job.status === 'completed' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`job still ${job.status}\nmanager:\n${manager.output()}\nworker:\n${worker.output()}`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }

  async function readObject(key: string): Promise<Buffer> {
    const stream = await s3client.getObject(s3.bucket, key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async function objectExists(key: string): Promise<boolean> {
    try {
      await s3client.statObject(s3.bucket, key);
      return true;
    } catch {
      return false;
    }
  }

  it('each role serves only its own routes', async () => {
    expect((await fetch(`${worker.url}/v1/fetcher/${randomUUID()}`)).status).toBe(404);
    expect((await fetch(`${worker.url}/health`)).status).toBe(200);
    const readiness = (await (await fetch(`${worker.url}/readyz`)).json()) as Record<string, any>;
    expect(readiness).toMatchObject({
      status: 'ready',
      role: 'worker',
      checks: {
        database: { status: 'up', kind: 'postgres' },
        queue: { status: 'up', kind: 'bullmq' },
        storage: { status: 'up', kind: 's3' },
      },
    });
    expect((await api('/swagger-json')).status).toBe(200);
  });

  it('completes a job whose object in the bucket decrypts and verifies', async () => {
    const created = await api('/v1/management/connections', {
      method: 'POST',
      headers: { 'X-Product-Name': 'reporter' },
      body: JSON.stringify(pgConnectionBody(source, { configName: 'pg_source' })),
    });
    expect(created.status).toBe(201);

    const submitted = await api('/v1/fetcher', {
      method: 'POST',
      body: JSON.stringify({
        dataRequest: { mappedFields: { pg_source: { 'public.accounts': ['*'], 'accounting.invoices': ['*'] } } },
        metadata: { source: 'reporter', correlationId: 'distributed-1' },
      }),
    });
    expect(submitted.status).toBe(202);
    const { jobId } = (await submitted.json()) as { jobId: string };

    const job = await waitForJob(jobId);
    expect(job.status).toBe('completed');
    expect(job.resultPath).toBe(`external-data/${jobId}.json`);

    const stored = await readObject(`${keyPrefix}external-data/${jobId}.json`);
    const { plaintext, hmac } = decodeStoredResult(stored, TEST_MASTER_KEY);
    expect(hmac).toBe(job.resultHmac);
    expect(JSON.parse(plaintext)).toEqual({ pg_source: { 'accounting.invoices': INVOICE_ROWS, accounts: ACCOUNTS_ROWS } });
    expect(job.result.rowCount).toBe(5);
  });

  it('fails a job over its result size limit and leaves no object in the bucket', async () => {
    const submitted = await api('/v1/fetcher', {
      method: 'POST',
      body: JSON.stringify({
        dataRequest: { mappedFields: { pg_source: { accounts: ['*'] } }, limits: { maxResultBytes: 64 } },
        metadata: { source: 'reporter', correlationId: 'distributed-too-big' },
      }),
    });
    const { jobId } = (await submitted.json()) as { jobId: string };
    const job = await waitForJob(jobId);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('FET-1101');
    expect(await objectExists(`${keyPrefix}external-data/${jobId}.json`)).toBe(false);
  });

  it('aborts a multipart upload that outgrows the limit after parts were sent, leaving no object', async () => {
    const submitted = await api('/v1/fetcher', {
      method: 'POST',
      body: JSON.stringify({
        dataRequest: { mappedFields: { pg_source: { big: ['*'] } }, limits: { maxResultBytes: 8 * 1024 * 1024 } },
        metadata: { source: 'reporter', correlationId: 'distributed-multipart-too-big' },
      }),
    });
    const { jobId } = (await submitted.json()) as { jobId: string };
    const job = await waitForJob(jobId);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('FET-1101');
    expect(await objectExists(`${keyPrefix}external-data/${jobId}.json`)).toBe(false);

    // The same table under the default limit is stored whole (~15 MiB, several 5 MiB parts).
    const whole = await api('/v1/fetcher', {
      method: 'POST',
      body: JSON.stringify({
        dataRequest: { mappedFields: { pg_source: { big: ['*'] } } },
        metadata: { source: 'reporter', correlationId: 'distributed-multipart' },
      }),
    });
    const completed = await waitForJob(((await whole.json()) as { jobId: string }).jobId);
    expect(completed.status).toBe('completed');
    const { plaintext, hmac } = decodeStoredResult(await readObject(`${keyPrefix}${completed.resultPath}`), TEST_MASTER_KEY);
    expect(hmac).toBe(completed.resultHmac);
    const rows = JSON.parse(plaintext).pg_source.big as { id: number }[];
    expect(rows).toHaveLength(200_000);
    expect(rows[199_999].id).toBe(200_000);
    expect(completed.result.sizeBytes).toBeGreaterThan(10 * 1024 * 1024);
  });

  it('both processes shut down gracefully on SIGTERM', async () => {
    const started = Date.now();
    // Nest re-raises the signal once its shutdown hooks have run, so the exit is "by SIGTERM".
    expect(await Promise.all([manager.stop(15_000), worker.stop(15_000)])).toEqual(['SIGTERM', 'SIGTERM']);
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const process of [manager, worker]) expect(process.output()).toContain('Fetcher stopped (SIGTERM)');
  });
});
