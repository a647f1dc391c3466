import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { consumeEvents, waitUntil, type ReceivedEvent } from '../helpers/event-consumer.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Terminal events through RabbitMQ (docs/job-lifecycle.md, "Terminal events"), and a load of 200 jobs on 2 workers. */
describe('terminal events on RabbitMQ', () => {
  const exchange = `fetcher-test-events-${randomUUID().slice(0, 8)}`;
  let broker: TcpProxy;
  let source: TempDatabase;
  let cluster: Cluster;
  let consumer: Awaited<ReturnType<typeof consumeEvents>>;

  beforeAll(async () => {
    broker = await startTcpProxy(5672);
    source = await createTempDatabase('events_source');
    await source.query(
      "CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts SELECT g, 'u' || g || '@x' FROM generate_series(1, 50) g;",
    );
    consumer = await consumeEvents(exchange);
    cluster = await new Cluster({
      env: {
        EVENTS_TRANSPORT: 'rmq',
        EVENTS_URL: `amqp://guest:guest@127.0.0.1:${broker.port}`,
        EVENTS_EXCHANGE: exchange,
        EVENTS_RELAY_INTERVAL_MS: '200',
        WORKER_CONCURRENCY: '5',
        // 200 submissions at once each test pg_source behind the per-host cap on test connections;
        // on a loaded 2-core machine that queue outlasts the default 5 s deadline. This suite is
        // about events, not test latency (fan-out.e2e checks the caps with the same allowance).
        CONNECTION_TEST_TIMEOUT_MS: '30000',
      },
    }).start(2);
    await cluster.registerPostgres('pg_source', source);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await consumer?.close();
    await broker?.close();
    await source?.drop();
  });

  const eventsOf = (jobId: string): ReceivedEvent[] => consumer.received.filter((event) => event.body.jobId === jobId);

  it('reports every dependency, broker and Redis included, in /readyz', async () => {
    const readiness = (await (await cluster.api('/readyz')).json()) as {
      status: string;
      checks: Record<string, { status: string; latencyMs: number }>;
    };
    expect(readiness.status).toBe('ready');
    expect(Object.keys(readiness.checks).sort()).toEqual(['broker', 'database', 'queue', 'redis', 'storage']);
    expect(Object.values(readiness.checks).every((check) => check.status === 'up' && typeof check.latencyMs === 'number')).toBe(true);
  });

  it('delivers exactly one job.completed and one job.failed with the original payloads', async () => {
    const completedId = await cluster.submit({ pg_source: { accounts: ['*'] } });
    const failedId = await cluster.submit({ pg_source: { ghosts: ['id'] } });
    const completed = await cluster.waitForTerminal(completedId);
    await cluster.waitForTerminal(failedId);
    await waitUntil(() => eventsOf(completedId).length > 0 && eventsOf(failedId).length > 0, 15_000, 'both events');
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(eventsOf(completedId)).toEqual([
      {
        routingKey: 'job.completed',
        messageId: `fetcher.job.completed.${completedId}`,
        body: {
          jobId: completedId,
          metadata: completed.metadata,
          status: 'completed',
          result: {
            path: `external-data/${completedId}.json`,
            sizeBytes: completed.result.sizeBytes,
            rowCount: 50,
            format: 'json',
            hmac: completed.resultHmac,
            integrity: { algorithm: 'HMAC-SHA256', signature: completed.resultHmac },
            protection: { encrypted: true, mode: 'adapter-managed', appliedBy: 'adapter' },
          },
          executionTimeMs: expect.any(Number),
          completedAt: expect.any(String),
        },
      },
    ]);
    const [failed] = eventsOf(failedId);
    expect(eventsOf(failedId)).toHaveLength(1);
    expect(failed).toMatchObject({
      routingKey: 'job.failed',
      messageId: `fetcher.job.failed.${failedId}`,
      body: { jobId: failedId, status: 'failed' },
    });
    expect(failed.body.metadata.source).toBe('reporter');
    expect(failed.body.metadata.error.message).toContain('ghosts');
  });

  it('keeps every event while the broker is unreachable and delivers each once it is back', async () => {
    broker.cut();
    const ids = await Promise.all(Array.from({ length: 3 }, () => cluster.submit({ pg_source: { accounts: ['id'] } })));
    for (const id of ids) expect((await cluster.waitForTerminal(id)).status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(ids.flatMap(eventsOf)).toEqual([]);
    const [{ n }] = (await cluster.store.query<{ n: string }>('SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL')).rows;
    expect(Number(n)).toBeGreaterThanOrEqual(3);

    broker.restore();
    await waitUntil(() => ids.every((id) => eventsOf(id).length > 0), 30_000, 'events after the broker came back');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const id of ids) expect(eventsOf(id).map((event) => event.messageId)).toEqual([`fetcher.job.completed.${id}`]);
  });

  it('runs 200 jobs submitted at once on 2 workers: each completes exactly once, with one event each', async () => {
    const ids = await Promise.all(
      Array.from({ length: 200 }, (_, i) => cluster.submit({ pg_source: { accounts: ['id', 'email'] } }, { batch: 'load', n: i })),
    );
    expect(new Set(ids).size).toBe(200);
    await waitUntil(
      async () => {
        const { rows } = await cluster.store.query<{ n: string }>(
          `SELECT count(*) AS n FROM jobs WHERE id = ANY($1) AND status = 'completed'`,
          [ids],
        );
        return Number(rows[0].n) === 200;
      },
      120_000,
      '200 completed jobs',
    );
    const { rows: attempts } = await cluster.store.query<{ attempts: number; completions: string; claims: string }>(
      `SELECT j.attempts,
              (SELECT count(*) FROM job_transitions t WHERE t.job_id = j.id AND t.to_status = 'completed') AS completions,
              (SELECT count(*) FROM job_transitions t WHERE t.job_id = j.id AND t.to_status = 'processing') AS claims
       FROM jobs j WHERE j.id = ANY($1)`,
      [ids],
    );
    expect(attempts.every((row) => row.attempts === 1 && Number(row.completions) === 1 && Number(row.claims) === 1)).toBe(true);
    const keys = await cluster.objectKeys();
    expect(ids.every((id) => keys.includes(`external-data/${id}.json`))).toBe(true);

    await waitUntil(() => ids.every((id) => eventsOf(id).length > 0), 60_000, '200 events');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(ids.every((id) => eventsOf(id).length === 1 && eventsOf(id)[0].routingKey === 'job.completed')).toBe(true);
    // Both workers took part.
    const { rows: workers } = await cluster.store.query<{ n: string }>(
      `SELECT count(DISTINCT worker_id) AS n FROM job_transitions WHERE job_id = ANY($1) AND to_status = 'completed'`,
      [ids],
    );
    expect(Number(workers[0].n)).toBe(2);
  }, 240_000);
});
