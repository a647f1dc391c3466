import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { waitUntil } from '../helpers/event-consumer.js';
import { registerPostgres, startEmbeddedFetcher, TEST_MASTER_KEY, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { freePort, startFetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase, useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * A source that accepts the login (and the session setup) and then never answers its catalog
 * query: the proxy swallows every query that reads pg_namespace. Nothing may wait on it for ever.
 */
const silentOnCatalog = (chunk: Buffer) => chunk.includes('pg_namespace');

describe('a source that accepts the login and then stays silent', () => {
  const source = useTempDatabase('silent_source');
  let proxy: TcpProxy;

  beforeAll(async () => {
    await source().query('CREATE TABLE accounts (id int PRIMARY KEY, name text); INSERT INTO accounts VALUES (1, $$a$$), (2, $$b$$);');
    proxy = await startTcpProxy(source().port, source().host, { silenceWhen: silentOnCatalog });
  });

  afterAll(async () => {
    await proxy?.close();
  });

  describe('in one process', () => {
    let fetcher: EmbeddedFetcher;
    let connectionId: string;
    const discoveryDeadlineMs = 3_000;

    beforeAll(async () => {
      fetcher = await startEmbeddedFetcher({ SCHEMA_DISCOVERY_TIMEOUT_MS: String(discoveryDeadlineMs) });
      connectionId = (await registerPostgres(fetcher.http, source(), { configName: 'silent_pg', product: 'reporter', port: proxy.port }))
        .id;
    });

    afterAll(async () => {
      await fetcher?.close();
    });

    it('fails the job with the timeout error within timeoutMs + 2 s', async () => {
      const timeoutMs = 2_000;
      const posted = Date.now();
      const response = await fetcher.http.post('/v1/fetcher').send({
        dataRequest: { mappedFields: { silent_pg: { accounts: ['id'] } }, limits: { timeoutMs } },
        metadata: { source: 'reporter' },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      const job = await waitForJob(fetcher.http, response.body.jobId, 20_000);
      const elapsed = Date.now() - posted;
      expect(job.status).toBe('failed');
      expect(job.error?.code).toBe('FET-1102');
      expect(elapsed).toBeLessThan(timeoutMs + 2_000);
    });

    it('answers GET /schema with 504 FET-1043 within its deadline (500 ms of scheduling slack)', async () => {
      const started = Date.now();
      const response = await fetcher.http.get(`/v1/management/connections/${connectionId}/schema`).set('X-Product-Name', 'reporter');
      expect(response.status).toBe(504);
      expect(response.body).toMatchObject({ code: 'FET-1043' });
      expect(Date.now() - started).toBeLessThan(discoveryDeadlineMs + 500);
    });

    it('answers validate-schema with 504 FET-1043 within its deadline', async () => {
      const started = Date.now();
      const response = await fetcher.http
        .post('/v1/management/connections/validate-schema')
        .set('X-Product-Name', 'reporter')
        .send({ mappedFields: { silent_pg: { accounts: ['id'] } } });
      expect(response.status).toBe(504);
      expect(response.body).toMatchObject({ code: 'FET-1043' });
      expect(Date.now() - started).toBeLessThan(discoveryDeadlineMs + 500);
    });

    it('still serves a healthy source afterwards', async () => {
      await registerPostgres(fetcher.http, source(), { configName: 'healthy_pg', product: 'reporter' });
      const response = await fetcher.http
        .post('/v1/fetcher')
        .send({ dataRequest: { mappedFields: { healthy_pg: { accounts: ['id', 'name'] } } }, metadata: { source: 'reporter' } });
      const job = await waitForJob(fetcher.http, response.body.jobId, 20_000);
      expect(job.status).toBe('completed');
      expect(job.result?.rowCount).toBe(2);
    });
  });

  it('SIGTERM with such jobs running exits within the grace period + 5 s, and the jobs go back to pending', async () => {
    const store = await createTempDatabase('silent_store');
    const port = await freePort();
    const graceMs = 1_000;
    const fetcher = await startFetcherProcess(
      {
        FETCHER_ROLE: 'all',
        DATABASE_URL: store.url,
        APP_ENC_KEY: TEST_MASTER_KEY,
        PORT: String(port),
        SHUTDOWN_GRACE_MS: String(graceMs),
        LOG_LEVEL: 'log',
      },
      port,
    );
    try {
      const api = (path: string, body: unknown) =>
        fetch(`${fetcher.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Product-Name': 'reporter' },
          body: JSON.stringify(body),
        });
      const created = await api(
        '/v1/management/connections',
        pgConnectionBody({ host: source().host, port: proxy.port, name: source().name, user: source().user }, { configName: 'silent_pg' }),
      );
      expect(created.status).toBe(201);
      const jobIds: string[] = [];
      for (const fields of [['id'], ['name']]) {
        const response = await api('/v1/fetcher', {
          dataRequest: { mappedFields: { silent_pg: { accounts: fields } } },
          metadata: { source: 'reporter' },
        });
        expect(response.status).toBe(202);
        jobIds.push(((await response.json()) as { jobId: string }).jobId);
      }
      const client = new pg.Client({ connectionString: store.url });
      await client.connect();
      try {
        const statuses = async () =>
          (
            await client.query<{ id: string; status: string; attempts: number }>(
              'SELECT id, status, attempts FROM jobs WHERE id = ANY($1)',
              [jobIds],
            )
          ).rows;
        await waitUntil(async () => (await statuses()).every((job) => job.status === 'processing'), 15_000, 'both jobs processing');
        // Both are now stuck in discovery on the silent source.
        await new Promise((resolve) => setTimeout(resolve, 500));

        const stopping = Date.now();
        const exit = await fetcher.stop(graceMs + 10_000);
        expect(exit).toBe('SIGTERM');
        expect(Date.now() - stopping).toBeLessThan(graceMs + 5_000);
        const after = await statuses();
        expect(after.map((job) => job.status)).toEqual(['pending', 'pending']);
        // A hand-back at shutdown does not use up one of the job's attempts.
        expect(after.map((job) => job.attempts)).toEqual([0, 0]);
      } finally {
        await client.end();
      }
    } finally {
      await fetcher.stop(5_000);
      await store.drop();
    }
  }, 60_000);
});
