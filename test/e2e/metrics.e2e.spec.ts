import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeEvents, waitUntil } from '../helpers/event-consumer.js';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher, type JobView } from '../helpers/fetcher-app.js';
import { freePort } from '../helpers/fetcher-process.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { parsePrometheusText, samplesOf, valueOf, type PrometheusSample } from '../helpers/prometheus-text.js';
import { ACCOUNTS_ROWS, SOURCE_FIXTURE_SQL } from '../helpers/source-fixtures.js';

const PRODUCT = 'reporter';

async function scrape(fetcher: EmbeddedFetcher): Promise<PrometheusSample[]> {
  const response = await fetcher.http.get('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toContain('text/plain');
  return parsePrometheusText(response.text);
}

/** The worker counts a job as finished just after its terminal status commits: wait for it. */
async function scrapeOnceFinished(fetcher: EmbeddedFetcher, jobs: number): Promise<PrometheusSample[]> {
  let samples: PrometheusSample[] = [];
  await waitUntil(
    async () => {
      samples = await scrape(fetcher);
      return valueOf(samples, 'fetcher_jobs_finished_total') === jobs;
    },
    10_000,
    `${jobs} finished job(s) in /metrics`,
  );
  return samples;
}

const submit = async (fetcher: EmbeddedFetcher, mappedFields: Record<string, Record<string, string[]>>): Promise<JobView> => {
  const response = await fetcher.http.post('/v1/fetcher').send({ dataRequest: { mappedFields }, metadata: { source: PRODUCT } });
  expect(response.status).toBe(202);
  return waitForJob(fetcher.http, response.body.jobId);
};

describe('GET /metrics after a completed and a failed job (embedded, events relayed to RabbitMQ)', () => {
  const exchange = `fetcher-test-metrics-${randomUUID().slice(0, 8)}`;
  let source: TempDatabase;
  let consumer: Awaited<ReturnType<typeof consumeEvents>>;
  let fetcher: EmbeddedFetcher;
  let completed: JobView;
  let failed: JobView;
  let probeStatuses: { up: number; down: number };
  let refusedStatus: number;
  let samples: PrometheusSample[];

  beforeAll(async () => {
    source = await createTempDatabase('e2e_metrics');
    await source.query(SOURCE_FIXTURE_SQL);
    consumer = await consumeEvents(exchange);
    fetcher = await startEmbeddedFetcher({
      EVENTS_TRANSPORT: 'rmq',
      EVENTS_URL: 'amqp://guest:guest@127.0.0.1:5672',
      EVENTS_EXCHANGE: exchange,
      EVENTS_RELAY_INTERVAL_MS: '200',
    });
    const up = await registerPostgres(fetcher.http, source, { configName: 'pg_main', product: PRODUCT });
    const down = await registerPostgres(fetcher.http, source, { configName: 'pg_down', product: PRODUCT, port: await freePort() });
    probeStatuses = {
      up: (await fetcher.http.post(`/v1/management/connections/${up.id}/test`)).status,
      down: (await fetcher.http.post(`/v1/management/connections/${down.id}/test`)).status,
    };
    // Refused by the JSON parser, before any route: still a request a dashboard must see.
    refusedStatus = (await fetcher.http.post('/v1/fetcher').set('Content-Type', 'application/json').send('{"dataRequest":')).status;
    completed = await submit(fetcher, { pg_main: { accounts: ['*'] } });
    failed = await submit(fetcher, { pg_main: { ghosts: ['id'] } });
    // Counted whether their signatures verify or not: the last spec says which.
    await waitUntil(() => consumer.received.length + consumer.rejected.length === 2, 15_000, 'both terminal events at the consumer');
    // The relay marks an event published just after the broker took it.
    await waitUntil(async () => valueOf(await scrape(fetcher), 'fetcher_outbox_backlog') === 0, 10_000, 'an empty outbox');
    samples = await scrapeOnceFinished(fetcher, 2);
  }, 120_000);

  afterAll(async () => {
    await fetcher?.close();
    await consumer?.close();
    await source?.drop();
  });

  it('ran the two jobs the assertions below count', () => {
    expect([completed.status, failed.status]).toEqual(['completed', 'failed']);
    expect(probeStatuses).toEqual({ up: 200, down: 502 });
  });

  it('counts the jobs by outcome, the failure by its FET code, and shows them by status in the store', () => {
    expect(samplesOf(samples, 'fetcher_jobs_finished_total').map((sample) => [sample.labels.outcome, sample.value])).toEqual([
      ['completed', 1],
      ['failed', 1],
    ]);
    expect(samplesOf(samples, 'fetcher_jobs_failed_total')).toEqual([
      { name: 'fetcher_jobs_failed_total', labels: { code: failed.error?.code }, value: 1 },
    ]);
    expect(Object.fromEntries(samplesOf(samples, 'fetcher_jobs').map((sample) => [sample.labels.status, sample.value]))).toEqual({
      pending: 0,
      processing: 0,
      completed: 1,
      failed: 1,
    });
  });

  it('times both jobs from claim to end and from creation to claim', () => {
    expect(valueOf(samples, 'fetcher_job_duration_seconds_count')).toBe(2);
    expect(valueOf(samples, 'fetcher_job_duration_seconds_count', { outcome: 'completed' })).toBe(1);
    expect(valueOf(samples, 'fetcher_job_duration_seconds_count', { outcome: 'failed' })).toBe(1);
    expect(valueOf(samples, 'fetcher_job_duration_seconds_bucket', { outcome: 'completed', le: '+Inf' })).toBe(1);
    expect(valueOf(samples, 'fetcher_job_queue_wait_seconds_count')).toBe(2);
    expect(valueOf(samples, 'fetcher_job_queue_wait_seconds_sum')).toBeGreaterThanOrEqual(0);
  });

  it('counts the rows of the table and the bytes of its datasource’s part of the result, for engine postgresql', () => {
    expect(samplesOf(samples, 'fetcher_extracted_rows_total')).toEqual([
      { name: 'fetcher_extracted_rows_total', labels: { engine: 'postgresql' }, value: ACCOUNTS_ROWS.length },
    ]);
    // The result is {"pg_main":{…}}: all of it but the outer braces is pg_main's part.
    expect(completed.result?.sizeBytes).toBeGreaterThan(2);
    expect(samplesOf(samples, 'fetcher_extracted_bytes_total')).toEqual([
      { name: 'fetcher_extracted_bytes_total', labels: { engine: 'postgresql' }, value: (completed.result?.sizeBytes ?? 0) - 2 },
    ]);
  });

  it('shows the worker idle and the queue empty at rest', () => {
    expect(samplesOf(samples, 'fetcher_jobs_running')).toEqual([
      { name: 'fetcher_jobs_running', labels: { worker: expect.stringMatching(/^.+:\d+:[0-9a-f]+$/) }, value: 0 },
    ]);
    expect(valueOf(samples, 'fetcher_queue_depth')).toBe(0);
  });

  it('counts the connection tests of POST …/test and of both submissions, the failed one by its reason', () => {
    expect(samplesOf(samples, 'fetcher_connection_tests_total').map((sample) => [sample.labels, sample.value])).toEqual([
      [{ engine: 'postgresql', outcome: 'success' }, 3],
      [{ engine: 'postgresql', outcome: 'failure', reason: 'unreachable' }, 1],
    ]);
  });

  it('counts HTTP requests by route template and status, with no job or connection id in any label', () => {
    expect(valueOf(samples, 'fetcher_http_requests_total', { method: 'POST', route: '/v1/fetcher', status: '202' })).toBe(2);
    const test = { method: 'POST', route: '/v1/management/connections/:id/test' };
    expect(valueOf(samples, 'fetcher_http_requests_total', { ...test, status: '200' })).toBe(1);
    expect(valueOf(samples, 'fetcher_http_requests_total', { ...test, status: '502' })).toBe(1);
    expect(
      valueOf(samples, 'fetcher_http_requests_total', { method: 'GET', route: '/v1/fetcher/:id', status: '200' }),
    ).toBeGreaterThanOrEqual(2);
    expect(valueOf(samples, 'fetcher_http_request_duration_seconds_count', { method: 'POST', route: '/v1/fetcher' })).toBe(2);
    const routes = new Set(samplesOf(samples, 'fetcher_http_requests_total').map((sample) => sample.labels.route));
    expect([...routes].filter((route) => /[0-9a-f]{8}-/.test(route))).toEqual([]);
    expect(routes).toContain('/metrics');
    expect(refusedStatus).toBe(400);
    expect(valueOf(samples, 'fetcher_http_requests_total', { method: 'POST', route: 'unmatched', status: '400' })).toBe(1);
  });

  it('relays both terminal events, signed: an empty outbox, two published, no relay failure, no collector error', () => {
    expect(consumer.rejected).toEqual([]);
    expect(consumer.received.map((event) => event.routingKey).sort()).toEqual(['job.completed', 'job.failed']);
    expect(valueOf(samples, 'fetcher_outbox_backlog')).toBe(0);
    expect(valueOf(samples, 'fetcher_outbox_events_published_total')).toBe(2);
    expect(valueOf(samples, 'fetcher_outbox_relay_failures_total')).toBeUndefined();
    expect(valueOf(samples, 'fetcher_metrics_collector_errors_total')).toBeUndefined();
  });
});

describe('GET /metrics without a broker (EVENTS_TRANSPORT=none)', () => {
  let source: TempDatabase;
  let fetcher: EmbeddedFetcher;

  beforeAll(async () => {
    source = await createTempDatabase('e2e_metrics_nobroker');
    await source.query(SOURCE_FIXTURE_SQL);
    fetcher = await startEmbeddedFetcher();
    await registerPostgres(fetcher.http, source, { configName: 'pg_main', product: PRODUCT });
  }, 60_000);

  afterAll(async () => {
    await fetcher?.close();
    await source?.drop();
  });

  it('keeps the terminal event in the outbox: the backlog is the number of finished jobs', async () => {
    expect(valueOf(await scrape(fetcher), 'fetcher_outbox_backlog')).toBe(0);
    expect((await submit(fetcher, { pg_main: { accounts: ['id'] } })).status).toBe('completed');
    await scrapeOnceFinished(fetcher, 1);
    // The store-wide gauges come from a read at most METRICS_STORE_REFRESH_SECONDS (5 s) old.
    let samples: PrometheusSample[] = [];
    await waitUntil(
      async () => valueOf((samples = await scrape(fetcher)), 'fetcher_outbox_backlog') === 1,
      10_000,
      'the backlog of one event in /metrics',
    );
    expect(valueOf(samples, 'fetcher_outbox_events_published_total')).toBe(0);
  });
});

describe('GET /metrics on a worker (PostgreSQL job store, BullMQ on Redis)', () => {
  let store: TempDatabase;
  let worker: EmbeddedFetcher;

  beforeAll(async () => {
    store = await createTempDatabase('e2e_metrics_store');
    worker = await startEmbeddedFetcher({
      FETCHER_ROLE: 'worker',
      DATABASE_URL: store.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `fetcher-test-metrics-${randomUUID().slice(0, 8)}`,
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await store?.drop();
  });

  it('reads the store-wide gauges from PostgreSQL and Redis, and shows its worker idle', async () => {
    await scrape(worker);
    const samples = await scrape(worker);
    expect(Object.fromEntries(samplesOf(samples, 'fetcher_jobs').map((sample) => [sample.labels.status, sample.value]))).toEqual({
      pending: 0,
      processing: 0,
      completed: 0,
      failed: 0,
    });
    expect(valueOf(samples, 'fetcher_queue_depth')).toBe(0);
    expect(valueOf(samples, 'fetcher_outbox_backlog')).toBe(0);
    expect(samplesOf(samples, 'fetcher_jobs_running').map((sample) => sample.value)).toEqual([0]);
    expect(valueOf(samples, 'fetcher_metrics_collector_errors_total')).toBeUndefined();
    expect(valueOf(samples, 'fetcher_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  });
});
