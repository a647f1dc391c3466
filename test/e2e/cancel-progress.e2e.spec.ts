import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { internalPostgresEnv, useTempDatabase } from '../helpers/pg-database.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const SLOW_ROWS = 20_000;

/**
 * Cancel and progress across processes: the Manager takes the cancel, the Worker (another process,
 * one job at a time) is running the job and must stop within 2 s, storing nothing; progress is
 * written by the Worker with its lease renewals and read through the Manager.
 */
describe('cancel and progress: manager and worker processes, PostgreSQL + Redis + S3', () => {
  const source = useTempDatabase('e2e_cancel_source');
  let cluster: Cluster;
  let alpha: string;
  let beta: string;

  beforeAll(async () => {
    // 20,000 rows at 0.5 ms each: about 10 s of reading, in batches of 2,000 rows.
    await source().query(`
      CREATE TABLE slow_source (id int PRIMARY KEY, label text NOT NULL);
      INSERT INTO slow_source SELECT g, 'row-' || g FROM generate_series(1, ${SLOW_ROWS}) g;
      CREATE VIEW slow_rows AS SELECT id, label, pg_sleep(0.0005)::text AS waited FROM slow_source;
      CREATE TABLE quick (id int PRIMARY KEY, label text NOT NULL);
      INSERT INTO quick SELECT g, 'q-' || g FROM generate_series(1, 5000) g;
      CREATE TABLE tiny (id int PRIMARY KEY);
      INSERT INTO tiny VALUES (1), (2), (3);`);
    cluster = new Cluster({
      env: { AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN, WORKER_CONCURRENCY: '1', ...internalPostgresEnv('src', source()) },
    });
    await cluster.start(1);
    const issue = async (productName: string) =>
      ((await (await call(ADMIN, 'POST', '/v1/management/api-keys', { productName, name: 'e2e' })).json()) as { key: string }).key;
    [alpha, beta] = await Promise.all([issue('alpha'), issue('beta')]);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  function call(key: string | undefined, method: string, path: string, body?: object): Promise<Response> {
    return cluster.api(path, {
      method,
      headers: key ? { Authorization: `Bearer ${key}` } : {},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  const getJob = async (key: string, id: string) => (await (await call(key, 'GET', `/v1/fetcher/${id}`)).json()) as Record<string, any>;

  async function submit(key: string, tables: Record<string, string[]>, tag: string = randomUUID()): Promise<string> {
    const response = await call(key, 'POST', '/v1/fetcher', {
      dataRequest: { mappedFields: { src: tables } },
      metadata: { source: 'alpha', tag },
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { jobId: string }).jobId;
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${cluster.logs()}`);
      await new Promise((done) => setTimeout(done, everyMs));
    }
  }

  const finished = (key: string, id: string) =>
    waitFor(`job ${id} to finish`, async () => {
      const job = await getJob(key, id);
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    });

  async function slowQueriesRunning(): Promise<number> {
    const { rows } = await source().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%slow_rows%'`,
    );
    return rows[0].n;
  }

  const objectsUnder = async (prefix: string) => (await cluster.objectKeys()).filter((key) => key.startsWith(prefix));

  async function outboxEvents(jobId: string): Promise<Array<{ event_type: string; payload: any }>> {
    return (
      await cluster.store.query<{ event_type: string; payload: any }>(`SELECT event_type, payload FROM outbox_events WHERE job_id = $1`, [
        jobId,
      ])
    ).rows;
  }

  it('reports progress while a job runs, and keeps the final per-table counts once completed', async () => {
    const jobId = await submit(alpha, { quick: ['*'], tiny: ['*'] });
    const job = await finished(alpha, jobId);
    expect(job.status).toBe('completed');
    expect(job.progress).toMatchObject({
      rowsRead: job.result.rowCount,
      bytesWritten: job.result.sizeBytes,
      tables: { src: { quick: { status: 'done', rows: 5000 }, tiny: { status: 'done', rows: 3 } } },
    });
    const finalCounts = Object.fromEntries(
      Object.entries(job.progress.tables.src as Record<string, { rows: number }>).map(([table, t]) => [table, t.rows]),
    );
    expect(finalCounts).toEqual(job.result.rowCounts.src);
    expect(Date.parse(job.progress.updatedAt)).toBeGreaterThanOrEqual(Date.parse(job.progress.startedAt));
  });

  it('cancels a pending job at once, a processing job on the worker process within 2 s, and refuses a finished one', async () => {
    // The worker runs one job at a time: the slow job holds it, the second stays pending.
    const slowId = await submit(alpha, { slow_rows: ['*'] });
    const seen: number[] = [];
    await waitFor(
      'progress to advance twice on the slow job',
      async () => {
        const job = await getJob(alpha, slowId);
        const rows = job.status === 'processing' ? job.progress?.rowsRead : undefined;
        if (typeof rows === 'number' && rows > 0 && rows !== seen.at(-1)) seen.push(rows);
        return seen.length >= 2 ? true : undefined;
      },
      30_000,
      200,
    );
    expect(seen[1]).toBeGreaterThan(seen[0]);
    const running = await getJob(alpha, slowId);
    expect(running.progress.tables.src['slow_rows'].status).toBe('reading');
    expect(running.progress.rowsRead).toBeLessThan(SLOW_ROWS);

    const pendingId = await submit(alpha, { tiny: ['id'] });
    expect((await getJob(alpha, pendingId)).status).toBe('pending');
    const cancelledPending = await call(alpha, 'POST', `/v1/fetcher/${pendingId}/cancel`);
    expect(cancelledPending.status).toBe(200);
    expect(await cancelledPending.json()).toMatchObject({ id: pendingId, status: 'failed', error: { code: 'FET-1105' } });

    expect(await slowQueriesRunning()).toBeGreaterThan(0);
    const cancelledAt = Date.now();
    const cancelled = await call(alpha, 'POST', `/v1/fetcher/${slowId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: slowId, status: 'failed', error: { code: 'FET-1105' } });
    // The worker is another process: its query on the source is gone within 2 s of the cancel.
    await waitFor('the worker to stop reading', async () => ((await slowQueriesRunning()) === 0 ? true : undefined), 5_000, 50);
    const stoppedAfterMs = Date.now() - cancelledAt;
    console.info(`cancel of a processing job: the worker process stopped reading ${stoppedAfterMs} ms after the cancel answered`);
    expect(stoppedAfterMs).toBeLessThan(2_000);
    await waitFor(
      'the worker to log the cancel',
      async () => (cluster.workers[0].output().includes(`job ${slowId} was cancelled`) ? true : undefined),
      5_000,
    );

    for (const jobId of [slowId, pendingId]) {
      expect((await getJob(alpha, jobId)).status).toBe('failed');
      expect(await objectsUnder(`external-data/.attempts/${jobId}`)).toEqual([]);
      expect(await objectsUnder(`external-data/${jobId}`)).toEqual([]);
      const events = await outboxEvents(jobId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        event_type: 'job.failed',
        payload: { jobId, status: 'failed', metadata: { error: { code: 'FET-1105' } } },
      });
    }

    // The worker, free again, takes the next job; the cancelled pending one is never run.
    const afterId = await submit(alpha, { tiny: ['*'] });
    expect((await finished(alpha, afterId)).status).toBe('completed');
    expect((await getJob(alpha, pendingId)).status).toBe('failed');

    // Cancel is idempotent; a finished job is not cancelled.
    const again = await call(alpha, 'POST', `/v1/fetcher/${slowId}/cancel`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'failed', error: { code: 'FET-1105' } });
    expect(await outboxEvents(slowId)).toHaveLength(1);
    const completed = await call(alpha, 'POST', `/v1/fetcher/${afterId}/cancel`);
    expect(completed.status).toBe(409);
    expect(await completed.json()).toMatchObject({ code: 'FET-1110' });
    expect((await getJob(alpha, afterId)).status).toBe('completed');
  }, 90_000);

  it('lets only the owning product or the operator cancel', async () => {
    const jobId = await submit(alpha, { slow_rows: ['id'] }, 'auth');
    expect((await call(undefined, 'POST', `/v1/fetcher/${jobId}/cancel`)).status).toBe(401);
    const other = await call(beta, 'POST', `/v1/fetcher/${jobId}/cancel`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'FET-1001' });
    expect((await getJob(alpha, jobId)).status).not.toBe('failed');
    expect((await call(beta, 'POST', `/v1/fetcher/${randomUUID()}/cancel`)).status).toBe(404);
    expect(await (await call(alpha, 'POST', '/v1/fetcher/not-a-uuid/cancel')).json()).toMatchObject({ code: 'FET-0404' });
    const byOperator = await call(ADMIN, 'POST', `/v1/fetcher/${jobId}/cancel`);
    expect(byOperator.status).toBe(200);
    expect(await byOperator.json()).toMatchObject({ status: 'failed', error: { code: 'FET-1105' } });
    await waitFor('the worker to stop reading', async () => ((await slowQueriesRunning()) === 0 ? true : undefined), 5_000, 50);
  }, 60_000);
});
