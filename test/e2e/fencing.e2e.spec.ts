import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { waitUntil } from '../helpers/event-consumer.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const SLOW_SOURCE_SQL = `CREATE TABLE slow_source (id int PRIMARY KEY, label text);
  INSERT INTO slow_source SELECT g, 'row ' || g FROM generate_series(1, 20) g;
  CREATE VIEW slow_rows AS SELECT id, label, pg_sleep(0.2)::text AS waited FROM slow_source;`;

/** A worker that lost its lease stores nothing; the job records the HMAC of the object it has. */
describe('fencing: a worker cut off from the job store', () => {
  let source: TempDatabase;
  let cluster: Cluster;
  let storeProxy: TcpProxy;

  beforeAll(async () => {
    source = await createTempDatabase('fencing_source');
    await source.query(SLOW_SOURCE_SQL);
    cluster = await new Cluster({ env: { JOB_LEASE_MS: '2000', JOB_RECOVERY_INTERVAL_MS: '500', WORKER_CONCURRENCY: '1' } }).start(0);
    await cluster.registerPostgres('pg_source', source);
    storeProxy = await startTcpProxy(cluster.store.port, cluster.store.host);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await storeProxy?.close();
    await source?.drop();
  });

  it('stores nothing from the cut-off worker, and the stored object is the one whose HMAC the job records', async () => {
    const proxiedStore = cluster.store.url.replace(`:${cluster.store.port}/`, `:${storeProxy.port}/`);
    const cutOff = await cluster.addWorker({ DATABASE_URL: proxiedStore });
    const jobId = await cluster.submit({ pg_source: { slow_rows: ['id', 'label'] } });
    await cluster.waitFor(jobId, (job) => job.status === 'processing', 30_000);
    const [{ worker_id: firstHolder }] = (
      await cluster.store.query<{ worker_id: string }>('SELECT worker_id FROM jobs WHERE id = $1', [jobId])
    ).rows;
    expect(firstHolder).toContain(`:${cutOff.child.pid}:`);

    // Longer than the 2 s lease: the job store is gone for this worker; another one takes over.
    storeProxy.cut();
    const rescuer = await cluster.addWorker();
    const job = await cluster.waitForTerminal(jobId, 60_000);
    expect(job.status).toBe('completed');
    const transitions = await cluster.transitions(jobId);
    expect(transitions.at(-1)?.worker_id).toContain(`:${rescuer.child.pid}:`);
    storeProxy.restore();

    await waitUntil(() => cutOff.output().includes(`job ${jobId} stopped and stored nothing`), 30_000, 'the cut-off worker to give up');
    const stored = await cluster.readResult(job.resultPath);
    expect(stored.hmac).toBe(job.resultHmac);
    expect(JSON.parse(stored.plaintext).pg_source.slow_rows).toHaveLength(20);
    // Only the committed object is left: no attempt's object of either worker.
    expect((await cluster.objectKeys()).filter((key) => key.includes(jobId))).toEqual([`external-data/${jobId}.json`]);
  }, 120_000);
});

describe('two FETCHER_ROLE=all processes sharing PostgreSQL without Redis', () => {
  it('a restart of one does not touch the job the other is running', async () => {
    const source = await createTempDatabase('shared_all_source');
    await source.query(SLOW_SOURCE_SQL);
    const store = await createTempDatabase('shared_all_store');
    const dirs = [mkdtempSync(join(tmpdir(), 'fetcher-all-a-')), mkdtempSync(join(tmpdir(), 'fetcher-all-b-'))];
    const ports = [await freePort(), await freePort()];
    const envOf = (index: number) => ({
      FETCHER_ROLE: 'all',
      DATABASE_URL: store.url,
      DATA_DIR: dirs[index],
      APP_ENC_KEY: TEST_MASTER_KEY,
      PORT: String(ports[index]),
      LOG_LEVEL: 'log',
    });
    const processes: FetcherProcess[] = [];
    try {
      processes.push(await startFetcherProcess(envOf(0), ports[0]), await startFetcherProcess(envOf(1), ports[1]));
      const [runner, restarted] = processes;
      const api = (path: string, body?: unknown) =>
        fetch(`${runner.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'reporter' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const created = await api('/v1/management/connections', pgConnectionBody(source, { configName: 'pg_source' }));
      expect(created.status).toBe(201);
      const { jobId } = (await (
        await api('/v1/fetcher', { dataRequest: { mappedFields: { pg_source: { slow_rows: ['id'] } } }, metadata: { source: 'reporter' } })
      ).json()) as { jobId: string };
      await waitUntil(
        async () => ((await (await api(`/v1/fetcher/${jobId}`)).json()) as { status: string }).status === 'processing',
        15_000,
        'processing',
      );

      // The other process restarts while the job runs: on boot it must not take it for an orphan.
      await restarted.stop(5_000);
      processes[1] = await startFetcherProcess(envOf(1), ports[1]);

      await waitUntil(
        async () => ((await (await api(`/v1/fetcher/${jobId}`)).json()) as { status: string }).status === 'completed',
        30_000,
        'completed',
      );
      const transitions = (
        await store.query<{ to_status: string; worker_id: string | null }>(
          'SELECT to_status, worker_id FROM job_transitions WHERE job_id = $1 ORDER BY at, id',
          [jobId],
        )
      ).rows;
      expect(transitions.map((t) => t.to_status)).toEqual(['pending', 'processing', 'completed']);
      expect(transitions[1].worker_id).toContain(`:${runner.child.pid}:`);
    } finally {
      await Promise.allSettled(processes.map((child) => child.stop(5_000)));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await store.drop();
      await source.drop();
    }
  }, 90_000);
});
