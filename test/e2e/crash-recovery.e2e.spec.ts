import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { waitUntil } from '../helpers/event-consumer.js';
import type { FetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';

/** No job lost or stuck when workers die or are stopped mid-extraction (docs/job-lifecycle.md, docs/reliability.md). */
describe('workers that die or stop in the middle of a job', () => {
  let source: TempDatabase;
  let cluster: Cluster;

  beforeAll(async () => {
    source = await createTempDatabase('crash_source');
    // ~4 s to read: long enough to kill or stop a worker in the middle of it.
    await source.query(`CREATE TABLE slow_source (id int PRIMARY KEY, label text);
      INSERT INTO slow_source SELECT g, 'row ' || g FROM generate_series(1, 20) g;
      CREATE VIEW slow_rows AS SELECT id, label, pg_sleep(0.2)::text AS waited FROM slow_source;
      CREATE VIEW slower_rows AS SELECT id, label, pg_sleep(0.4)::text AS waited FROM slow_source;`);
    cluster = await new Cluster({
      env: {
        JOB_LEASE_MS: '2000',
        JOB_RECOVERY_INTERVAL_MS: '500',
        JOB_MAX_ATTEMPTS: '3',
        SHUTDOWN_GRACE_MS: '1000',
        WORKER_CONCURRENCY: '2',
      },
    }).start(0);
    await cluster.registerPostgres('pg_source', source);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await source?.drop();
  });

  /** The worker process that holds the job (its worker id carries its pid). */
  async function holderOf(jobId: string): Promise<FetcherProcess> {
    let holder: FetcherProcess | undefined;
    await waitUntil(
      async () => {
        const job = await cluster.job(jobId);
        const [{ worker_id: workerId } = { worker_id: null }] = (
          await cluster.store.query<{ worker_id: string | null }>('SELECT worker_id FROM jobs WHERE id = $1', [jobId])
        ).rows;
        holder =
          job.status === 'processing' && workerId
            ? cluster.workers.find((worker) => workerId.includes(`:${worker.child.pid}:`))
            : undefined;
        return holder !== undefined;
      },
      30_000,
      `job ${jobId} to be processing`,
    );
    return holder as FetcherProcess;
  }

  const kill9 = async (worker: FetcherProcess) => {
    worker.child.kill('SIGKILL');
    await new Promise((resolve) => worker.child.once('exit', resolve));
  };

  it('kill -9 mid-extraction: another worker completes the job, one object is stored and verifies', async () => {
    const [first] = [await cluster.addWorker(), await cluster.addWorker()];
    void first;
    const jobId = await cluster.submit({ pg_source: { slow_rows: ['id', 'label'] } });
    const holder = await holderOf(jobId);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await kill9(holder);

    const job = await cluster.waitForTerminal(jobId, 60_000);
    expect(job.status).toBe('completed');
    expect((await cluster.transitions(jobId)).map((t) => t.to_status)).toEqual([
      'pending',
      'processing',
      'pending',
      'processing',
      'completed',
    ]);
    const keys = (await cluster.objectKeys()).filter((key) => key.includes(jobId));
    expect(keys).toEqual([`external-data/${jobId}.json`]);
    const { plaintext, hmac } = await cluster.readResult(keys[0]);
    expect(hmac).toBe(job.resultHmac);
    expect(JSON.parse(plaintext).pg_source.slow_rows).toHaveLength(20);
  }, 120_000);

  it('fails a job whose worker died three times, saying so', async () => {
    for (const worker of cluster.workers.splice(0)) await worker.stop(5_000);
    const jobId = await cluster.submit({ pg_source: { slow_rows: ['id'] } });
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await cluster.addWorker();
      const holder = await holderOf(jobId);
      await kill9(holder);
      cluster.workers.splice(cluster.workers.indexOf(holder), 1);
    }
    await cluster.addWorker();
    const job = await cluster.waitForTerminal(jobId, 60_000);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('FET-1106');
    expect(job.error.message).toContain('stopped responding 3 times');
    expect((await cluster.transitions(jobId)).map((t) => t.to_status)).toEqual([
      'pending',
      'processing',
      'pending',
      'processing',
      'pending',
      'processing',
      'failed',
    ]);
    expect((await cluster.objectKeys()).filter((key) => key.includes(jobId))).toEqual([]);
  }, 120_000);

  it('SIGTERM mid-job: the worker exits within its grace period and another worker completes the job', async () => {
    for (const worker of cluster.workers.splice(0)) await worker.stop(5_000);
    await cluster.addWorker();
    await cluster.addWorker();
    // ~8 s of reading: well past the 1 s grace period, so the job is handed back.
    const jobId = await cluster.submit({ pg_source: { slower_rows: ['id'] } });
    const holder = await holderOf(jobId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stopping = Date.now();
    const exited = holder.stop(10_000);
    // While it drains, the worker tells its orchestrator it is not ready.
    let readiness = { status: 0, body: '' };
    await waitUntil(
      async () => {
        const response = await fetch(`${holder.url}/readyz`);
        readiness = { status: response.status, body: await response.text() };
        return response.status === 503;
      },
      1_000,
      'readiness to turn 503',
    );
    expect(JSON.parse(readiness.body).status).toBe('draining');
    const exit = await exited;
    expect(exit).toBe('SIGTERM');
    expect(Date.now() - stopping).toBeLessThan(1_000 + 3_000);
    expect(holder.output()).toContain('handed back to pending');

    const job = await cluster.waitForTerminal(jobId, 60_000);
    expect(job.status).toBe('completed');
    const transitions = await cluster.transitions(jobId);
    expect(transitions.map((t) => t.to_status)).toEqual(['pending', 'processing', 'pending', 'processing', 'completed']);
    expect(transitions[2].reason).toBe('worker shutting down');
  }, 120_000);
});

describe('the embedded mode (SQLite, in-process queue) restarting after a crash', () => {
  it('finishes, after a restart, the job the killed process was running', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { freePort, startFetcherProcess } = await import('../helpers/fetcher-process.js');
    const { TEST_MASTER_KEY } = await import('../helpers/fetcher-app.js');
    const source = await createTempDatabase('embedded_crash');
    await source.query(`CREATE TABLE slow_source (id int PRIMARY KEY); INSERT INTO slow_source SELECT g FROM generate_series(1, 15) g;
      CREATE VIEW slow_rows AS SELECT id, pg_sleep(0.2)::text AS waited FROM slow_source;`);
    const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-embedded-crash-'));
    const port = await freePort();
    // Orphans are decided by lease expiry alone: the restarted process recovers the job once the
    // dead one's lease has run out.
    const env = {
      DATA_DIR: dataDir,
      APP_ENC_KEY: TEST_MASTER_KEY,
      PORT: String(port),
      LOG_LEVEL: 'log',
      JOB_LEASE_MS: '3000',
      JOB_RECOVERY_INTERVAL_MS: '500',
    };
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
    let fetcher = await startFetcherProcess(env, port);
    try {
      await api('/v1/management/connections', {
        method: 'POST',
        headers: { 'X-Product-Name': 'reporter' },
        body: JSON.stringify(pgConnectionBody(source, { configName: 'pg_source', password: 'x' })),
      });
      const { jobId } = (await (
        await api('/v1/fetcher', {
          method: 'POST',
          body: JSON.stringify({ dataRequest: { mappedFields: { pg_source: { slow_rows: ['id'] } } }, metadata: { source: 'reporter' } }),
        })
      ).json()) as { jobId: string };
      await waitUntil(
        async () => ((await (await api(`/v1/fetcher/${jobId}`)).json()) as { status: string }).status === 'processing',
        15_000,
        'processing',
      );
      fetcher.child.kill('SIGKILL');
      await new Promise((resolve) => fetcher.child.once('exit', resolve));

      fetcher = await startFetcherProcess(env, port);
      await waitUntil(
        async () => ((await (await api(`/v1/fetcher/${jobId}`)).json()) as { status: string }).status === 'completed',
        30_000,
        'completed after restart',
      );
      expect(fetcher.output()).toContain('re-queued (attempt 1 of 3)');
    } finally {
      await fetcher.stop(5_000);
      rmSync(dataDir, { recursive: true, force: true });
      await source.drop();
    }
  }, 90_000);
});
