import { createHmac, randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../helpers/cluster.js';
import { consumeEvents, waitUntil, type EventConsumer, type ReceivedEvent } from '../helpers/event-consumer.js';
import { eventSigningKey, signatureProblem, type RawEvent } from '../helpers/event-signature-check.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Terminal events through RabbitMQ (docs/job-lifecycle.md, "Terminal events"), and a load of 200 jobs
 * on 2 workers. The consumer checks every signature (docs/security.md, "Event signatures") and keeps
 * only the events that verify.
 */
describe('terminal events on RabbitMQ', () => {
  const exchange = `fetcher-test-events-${randomUUID().slice(0, 8)}`;
  let broker: TcpProxy;
  const source = useTempDatabase('events_source');
  let cluster: Cluster;
  let consumer: EventConsumer;
  let completedJobId: string;
  /** Message ids of the messages this spec forges; every other refusal is a signing bug. */
  const FORGED = 'forged.';

  beforeAll(async () => {
    broker = await startTcpProxy(5672);
    await source().query(
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
    await cluster.registerPostgres('pg_source', source());
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await consumer?.close();
    await broker?.close();
  });

  const eventsOf = (jobId: string): ReceivedEvent[] => consumer.received.filter((event) => event.body.jobId === jobId);
  const rawOf = (messageId: string): RawEvent | undefined => consumer.raw[consumer.received.findIndex((e) => e.messageId === messageId)];
  const genuineRefused = () => consumer.rejected.filter((rejected) => !rejected.messageId.startsWith(FORGED));

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

    // Both signed as the original signs them, by the current master key (version 1).
    expect(genuineRefused()).toEqual([]);
    const now = Math.floor(Date.now() / 1000);
    for (const messageId of [`fetcher.job.completed.${completedId}`, `fetcher.job.failed.${failedId}`]) {
      const headers = rawOf(messageId)?.headers;
      expect(headers).toMatchObject({
        'x-message-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
        t: expect.stringMatching(/^[0-9]+$/),
        'signature-version': 'v1',
        'x-signature-key-version': '1',
      });
      expect(Math.abs(now - Number(headers?.t))).toBeLessThan(60);
    }
    completedJobId = completedId;
  });

  it('fails the check of a job.completed whose body, routing key or t was altered, and its consumer refuses it off the wire', async () => {
    const genuine = rawOf(`fetcher.job.completed.${completedJobId}`) as RawEvent;
    const key = eventSigningKey();
    expect(signatureProblem(genuine, key)).toBeNull();

    const body = JSON.parse(genuine.content.toString('utf8'));
    const forgeries: Record<string, RawEvent> = {
      body: { ...genuine, content: Buffer.from(JSON.stringify({ ...body, result: { ...body.result, rowCount: 51 } })) },
      'body byte': { ...genuine, content: Buffer.concat([genuine.content, Buffer.from(' ')]) },
      'routing key': { ...genuine, routingKey: 'job.failed' },
      t: { ...genuine, headers: { ...genuine.headers, t: String(Number(genuine.headers.t) - 1) } },
      // Signed with the master key itself instead of the key derived from it.
      key: {
        ...genuine,
        headers: {
          ...genuine.headers,
          'x-message-signature': createHmac('sha256', Buffer.alloc(32, 0x2a))
            .update(
              `${String(genuine.headers.t)}
v1

${completedJobId}
${exchange}
job.completed
`,
            )
            .update(genuine.content)
            .digest('hex'),
        },
      },
    };
    for (const [what, forged] of Object.entries(forgeries))
      expect([what, signatureProblem(forged, key)]).toEqual([what, 'signature does not match']);
    // Out of the window, even with its own signature: a replay a day later.
    expect(signatureProblem(genuine, key, Number(genuine.headers.t) + 86_400)).toBe('t is 86400 s old');

    // The same forgeries sent through the broker reach the consumer, which refuses each.
    const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
    try {
      const channel = await connection.createConfirmChannel();
      for (const [what, forged] of Object.entries(forgeries)) {
        channel.publish(exchange, forged.routingKey, forged.content, {
          messageId: `${FORGED}${what}`,
          contentType: 'application/json',
          headers: forged.headers,
        });
      }
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    await waitUntil(() => consumer.rejected.length >= Object.keys(forgeries).length, 10_000, 'the forgeries at the consumer');
    expect(consumer.rejected.map(({ messageId, reason }) => [messageId, reason]).sort()).toEqual(
      Object.keys(forgeries)
        .map((what) => [`${FORGED}${what}`, 'signature does not match'])
        .sort(),
    );
    expect(consumer.received.filter((event) => event.messageId.startsWith(FORGED))).toEqual([]);
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
    // Each verifies (the retry after a refusal is signed afresh: test/integration/outbox-relay.spec.ts).
    expect(genuineRefused()).toEqual([]);
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
    expect(genuineRefused()).toEqual([]);
    // Both workers took part.
    const { rows: workers } = await cluster.store.query<{ n: string }>(
      `SELECT count(DISTINCT worker_id) AS n FROM job_transitions WHERE job_id = ANY($1) AND to_status = 'completed'`,
      [ids],
    );
    expect(Number(workers[0].n)).toBe(2);
  }, 240_000);
});
