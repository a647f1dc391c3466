import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { waitUntil } from '../helpers/event-consumer.js';
import type { FetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/** SPEC §5.3, §9: no job lost or stuck when workers die or are stopped mid-extraction. */
describe('workers that die or stop in the middle of a job', () => {
  let source: TempDatabase;
  let cluster: Cluster;

  beforeAll(async () => {
    source = await createTempDatabase('crash_source');
    // ~4 s to read: long enough to kill or stop a worker in the middle of it.
    await source.query(`CREATE TABLE slow_source (id int PRIMARY KEY, label text);
      INSERT INTO slow_source SELECT g, 'row ' || g FROM generate_series(1, 20) g;
      CREATE VIEW slow_rows AS SELECT id, label, pg_sleep(0.2)::text AS waited FROM slow_source;`);
    cluster = await new Cluster({
      env: { JOB_LEASE_MS: '2000', JOB_RECOVERY_INTERVAL_MS: '500', JOB_MAX_ATTEMPTS: '3', SHUTDOWN_GRACE_MS: '1000', WORKER_CONCURRENCY: '2' },
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
        const [{ worker_id: workerId } = { worker_id: null }] = (await cluster.store.query<{ worker_id: string | null }>('SELECT worker_id FROM jobs WHERE id = $1', [jobId])).rows;
        holder = job.status === 'processing' && workerId ? cluster.workers.find((worker) => workerId.includes(`:${worker.child.pid}:`)) : undefined;
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
    expect((await cluster.transitions(jobId)).map((t) => t.to_status)).toEqual(['pending', 'processing', 'pending', 'processing', 'completed']);
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
      'pending', 'processing', 'pending', 'processing', 'pending', 'processing', 'failed',
    ]);
    expect((await cluster.objectKeys()).filter((key) => key.includes(jobId))).toEqual([]);
  }, 120_000);

  it('SIGTERM mid-job: the worker exits within its grace period and another worker completes the job', async () => {
    for (const worker of cluster.workers.splice(0)) await worker.stop(5_000);
    await cluster.addWorker();
    const jobId = await cluster.submit({ pg_source: { slow_rows: ['id'] } });
    const holder = await holderOf(jobId);
    await cluster.addWorker();
    const stopping = Date.now();
    const exit = await holder.stop(10_000);
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
