import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { waitUntil } from '../helpers/event-consumer.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Each dependency failing on its own (docs/reliability.md): the system answers clearly, leaves
 * nothing partial behind and carries on when the dependency is back. Every dependency is reached
 * through a TCP proxy the test cuts, so the machine's shared services keep running.
 */
describe('dependency faults', () => {
  const source = useTempDatabase('faults_source');
  let cluster: Cluster;
  const proxies: Record<'managerStore' | 'workerStore' | 'managerRedis' | 'workerS3' | 'source', TcpProxy> = {} as never;

  beforeAll(async () => {
    await source().query(`
      CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (1, 'a@x'), (2, 'b@x');
      CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL);
      INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 300000) g;
      CREATE TABLE slow_source (id int PRIMARY KEY); INSERT INTO slow_source SELECT g FROM generate_series(1, 5000) g;
      CREATE VIEW slow_rows AS SELECT id, CASE WHEN id % 500 = 0 THEN pg_sleep(0.2)::text END AS waited FROM slow_source;`);
    proxies.managerStore = await startTcpProxy(5432);
    proxies.workerStore = await startTcpProxy(5432);
    proxies.managerRedis = await startTcpProxy(6379);
    proxies.source = await startTcpProxy(source().port);
    cluster = new Cluster({
      env: { JOB_LEASE_MS: '2000', JOB_RECOVERY_INTERVAL_MS: '500' },
      storeUrl: (role, direct) => direct.replace(':5432/', `:${(role === 'manager' ? proxies.managerStore : proxies.workerStore).port}/`),
      roleEnv: (role): Record<string, string> =>
        role === 'manager' ? { REDIS_URL: `redis://127.0.0.1:${proxies.managerRedis.port}` } : { S3_PORT: String(proxies.workerS3.port) },
    });
    // The S3 proxy needs the S3 server's port, known once the cluster started it: start without workers first.
    await cluster.start(0);
    proxies.workerS3 = await startTcpProxy(cluster.s3.port);
    await cluster.addWorker();
    await cluster.registerPostgres('pg_source', source());
    await cluster.registerPostgres('pg_proxied', source(), proxies.source.port);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all(Object.values(proxies).map((proxy) => proxy?.close()));
  });

  const restoreAll = () => Object.values(proxies).forEach((proxy) => proxy.restore());

  it('Redis down at POST /v1/fetcher: 503, and the job is recorded failed, not left pending', async () => {
    proxies.managerRedis.cut();
    try {
      const response = await cluster.api('/v1/fetcher', {
        method: 'POST',
        body: JSON.stringify({
          dataRequest: { mappedFields: { pg_source: { accounts: ['id'] } } },
          metadata: { source: 'reporter', correlationId: 'redis-down' },
        }),
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe('FET-0003');
      const { rows } = await cluster.store.query<{ status: string; error: { message: string } }>(
        "SELECT status, error FROM jobs WHERE metadata->>'correlationId' = 'redis-down'",
      );
      expect(rows).toEqual([{ status: 'failed', error: { code: 'FET-0003', message: 'process failed: unable to enqueue the job' } }]);
      expect((await readinessOnceStale()).checks.queue.status).toBe('down');
    } finally {
      restoreAll();
    }
    await waitUntil(async () => (await cluster.api('/readyz')).status === 200, 15_000, 'the queue to be reachable again');
    const again = await cluster.submit({ pg_source: { accounts: ['id'] } }, { correlationId: 'redis-down' });
    expect((await cluster.waitForTerminal(again)).status).toBe('completed');
  });

  /**
   * /readyz answers from a probe at most a second old: the first 503 comes within that second of the
   * outage (and a 200 before it can only be the earlier probe's).
   */
  async function readinessOnceStale(): Promise<{ checks: Record<string, { status: string }> }> {
    const deadline = Date.now() + 2_500;
    for (;;) {
      const readiness = await cluster.api('/readyz');
      if (readiness.status === 503) return (await readiness.json()) as { checks: Record<string, { status: string }> };
      expect(readiness.status).toBe(200);
      if (Date.now() > deadline) throw new Error('/readyz still answers 200 2.5 s into the outage');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('job store unreachable: the API answers 503 (never 500), and works again when it is back', async () => {
    const jobId = await cluster.submit({ pg_source: { accounts: ['id'] } });
    await cluster.waitForTerminal(jobId);
    proxies.managerStore.cut();
    try {
      const read = await cluster.api(`/v1/fetcher/${jobId}`);
      expect(read.status).toBe(503);
      expect(((await read.json()) as { code: string }).code).toBe('FET-0003');
      const write = await cluster.api('/v1/fetcher', {
        method: 'POST',
        body: JSON.stringify({ dataRequest: { mappedFields: { pg_source: { accounts: ['id'] } } }, metadata: { source: 'reporter' } }),
      });
      expect(write.status).toBe(503);
      expect((await readinessOnceStale()).checks.database.status).toBe('down');
    } finally {
      restoreAll();
    }
    await waitUntil(async () => (await cluster.api(`/v1/fetcher/${jobId}`)).status === 200, 15_000, 'the API to recover');
  });

  it('job store unreachable from the worker: it keeps retrying and completes the job once the store is back', async () => {
    proxies.workerStore.cut();
    let jobId: string;
    try {
      jobId = await cluster.submit({ pg_source: { accounts: ['*'] } });
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect((await cluster.job(jobId)).status).toBe('pending');
    } finally {
      restoreAll();
    }
    const job = await cluster.waitForTerminal(jobId!, 30_000);
    expect(job.status).toBe('completed');
    expect(cluster.workers[0].child.exitCode).toBeNull();
  });

  it('S3 failing mid-upload: the job fails with a storage error and no object is left', async () => {
    const jobId = await cluster.submit({ pg_source: { big: ['*'] } });
    await cluster.waitFor(jobId, (job) => job.status === 'processing', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxies.workerS3.cut();
    try {
      const job = await cluster.waitForTerminal(jobId, 60_000);
      expect(job.status).toBe('failed');
      expect(job.error.code).toBe('FET-1104');
      expect(JSON.stringify(job.error)).not.toContain('S3RVER');
    } finally {
      restoreAll();
    }
    expect((await cluster.objectKeys()).filter((key) => key.includes(jobId))).toEqual([]);
  });

  it('a source database dying mid-stream: the job fails naming it, the upload is aborted, nothing stored', async () => {
    const jobId = await cluster.submit({ pg_proxied: { slow_rows: ['id', 'waited'] } });
    await cluster.waitFor(jobId, (job) => job.status === 'processing', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 800));
    proxies.source.cut();
    try {
      const job = await cluster.waitForTerminal(jobId, 30_000);
      expect(job.status).toBe('failed');
      expect(['FET-1103', 'FET-1040']).toContain(job.error.code);
      expect(job.error.message).toContain('pg_proxied');
    } finally {
      restoreAll();
    }
    expect((await cluster.objectKeys()).filter((key) => key.includes(jobId))).toEqual([]);
    expect(cluster.workers[0].child.exitCode).toBeNull();
  });
});
