import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSS_SAMPLER } from '../../src/extraction/memory-guard.js';
import { waitUntil } from '../helpers/event-consumer.js';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const MiB = 1024 * 1024;

/** Over WORKER_MAX_RSS_MB the worker takes no new job and fails the running one that crossed it. */
describe('the worker memory guard', () => {
  let fetcher: EmbeddedFetcher;
  const source = useTempDatabase('memory_guard');
  const rss = { value: 100 * MiB };

  beforeAll(async () => {
    await source().query(`CREATE TABLE slow_source (id int PRIMARY KEY); INSERT INTO slow_source SELECT g FROM generate_series(1, 30) g;
      CREATE VIEW slow_rows AS SELECT id, pg_sleep(0.1)::text AS waited FROM slow_source;
      CREATE TABLE quick (id int PRIMARY KEY); INSERT INTO quick VALUES (1), (2);`);
    fetcher = await startEmbeddedFetcher(
      { WORKER_MAX_RSS_MB: '512', WORKER_CONCURRENCY: '2' },
      { overrides: [[RSS_SAMPLER, () => rss.value]] },
    );
    await registerPostgres(fetcher.http, source(), { configName: 'pg_source', product: 'reporter' });
  });

  afterAll(async () => {
    await fetcher?.close();
  });

  const submit = (table: string, fields: string[]) =>
    fetcher.http.post('/v1/fetcher').send({
      dataRequest: { mappedFields: { pg_source: { [table]: fields } } },
      metadata: { source: 'reporter', correlationId: String(Math.random()) },
    });
  const statusOf = async (jobId: string) => (await fetcher.http.get(`/v1/fetcher/${jobId}`)).body.status as string;

  it('fails the running job with FET-1107, holds new jobs while over the limit, and runs them once memory falls', async () => {
    const running = (await submit('slow_rows', ['id'])).body.jobId as string;
    await waitUntil(async () => (await statusOf(running)) === 'processing', 10_000, 'processing');
    rss.value = 900 * MiB;
    const failed = await waitForJob(fetcher.http, running, 15_000);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'FET-1107' });
    expect(failed.error?.message).toContain('limit 512 MiB');

    const held = (await submit('quick', ['id'])).body.jobId as string;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await statusOf(held)).toBe('pending');

    rss.value = 100 * MiB;
    const completed = await waitForJob(fetcher.http, held, 15_000);
    expect(completed.status).toBe('completed');
    expect(completed.result?.rowCount).toBe(2);
  });
});
