import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { eventually, startWebhookReceiver, webhookSignatureProblem, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Webhooks end to end (docs/webhooks.md): one signed delivery per terminal event, retries, deletion. */
describe('webhook deliveries', () => {
  const product = `hooks-${randomUUID().slice(0, 8)}`;
  const source = useTempDatabase('e2e_hooks');
  let fetcher: EmbeddedFetcher;
  let receiver: WebhookReceiver;
  let retried: string | undefined;

  beforeAll(async () => {
    await source().query("CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (1, 'a@x'), (2, 'b@x');");
    // The first delivery it sees is answered 500 three times, then 200; every other one 200.
    receiver = await startWebhookReceiver((delivery, earlier) => {
      const id = delivery.headers['webhook-id'] as string;
      retried ??= id;
      return id === retried && earlier.filter((seen) => seen.headers['webhook-id'] === id).length < 3 ? 500 : 200;
    });
    fetcher = await startEmbeddedFetcher({
      ALLOW_PRIVATE_HOSTS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_MS: '200',
      CONNECTION_TEST_TIMEOUT_MS: '30000',
    });
    await registerPostgres(fetcher.http, source(), { configName: 'pg_source', product });
  }, 60_000);
  afterAll(async () => {
    await fetcher?.close();
    await receiver?.close();
  });

  const submit = async (table: string): Promise<string> => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { pg_source: { [table]: ['*'] } } }, metadata: { source: product, run: randomUUID() } });
    expect(response.status).toBe(202);
    return response.body.jobId as string;
  };
  const register = async (url: string, events = ['job.completed', 'job.failed']) => {
    const response = await fetcher.http.post('/v1/management/webhooks').set('X-Product-Name', product).send({ url, events });
    expect(response.status).toBe(201);
    return response.body as { id: string; secret: string; events: string[] };
  };

  it('delivers exactly one signed delivery per terminal event of 100 jobs, retrying with the same delivery id', async () => {
    const hook = await register(receiver.url);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const ids: string[] = [];
    for (let index = 0; index < 100; index++) ids.push(await submit(index % 10 === 0 ? 'ghosts' : 'accounts'));
    const statuses = new Map<string, string>();
    for (const id of ids) statuses.set(id, (await waitForJob(fetcher.http, id, 120_000)).status);
    expect([...statuses.values()].filter((status) => status === 'failed')).toHaveLength(10);

    const delivered = () => new Set(receiver.received.filter((d) => d.answered === 200).map((d) => d.headers['webhook-id']));
    await eventually(() => delivered().size >= 100, 120_000, '100 deliveries');

    for (const delivery of receiver.received) expect(webhookSignatureProblem(hook.secret, delivery)).toBeUndefined();
    const byDelivery = new Map<string, { jobId: string; type: string }>();
    for (const delivery of receiver.received) {
      const entry = { jobId: delivery.json.jobId as string, type: delivery.headers['x-event-type'] as string };
      const known = byDelivery.get(delivery.headers['webhook-id'] as string);
      if (known) expect(known).toEqual(entry);
      byDelivery.set(delivery.headers['webhook-id'] as string, entry);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['user-agent']).toMatch(/^Fetcher-Webhooks\//);
    }
    // One delivery per job, of the event its status says, after dedupe by webhook-id.
    expect(byDelivery.size).toBe(100);
    expect(new Set([...byDelivery.values()].map((entry) => entry.jobId))).toEqual(new Set(ids));
    for (const { jobId, type } of byDelivery.values()) expect(type).toBe(`job.${statuses.get(jobId)}`);
    // The retried one: three 500s then a 200, all with the same id.
    expect(receiver.received.filter((d) => d.headers['webhook-id'] === retried).map((d) => d.answered)).toEqual([500, 500, 500, 200]);
    expect(receiver.received).toHaveLength(103);

    const page = await fetcher.http.get(`/v1/management/webhooks/${hook.id}/deliveries?limit=100`);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(100);
    expect(page.body.items.every((item: { state: string }) => item.state === 'delivered')).toBe(true);
    const retriedView = page.body.items.find((item: { deliveryId: string }) => item.deliveryId === retried);
    expect(retriedView.attempts).toBe(4);
    expect(retriedView.attemptList.map((a: { statusCode: number }) => a.statusCode)).toEqual([200, 500, 500, 500]);
    expect(retriedView.attemptList[3].error).toBe('receiver answered 500');
    // The payload is the event body the broker gets.
    const completed = receiver.received.find((d) => d.headers['x-event-type'] === 'job.completed');
    expect(completed?.json).toMatchObject({ status: 'completed', metadata: { source: product } });
    expect(completed?.json.result).toMatchObject({ rowCount: 2 });
    expect(completed?.headers['x-event-id']).toBe(`fetcher.job.completed.${completed?.json.jobId as string}`);
    await fetcher.http.delete(`/v1/management/webhooks/${hook.id}`).expect(204);
  }, 300_000);

  it('sends nothing more to a deleted webhook', async () => {
    const other = await startWebhookReceiver();
    try {
      const deleted = await register(receiver.url, ['job.completed']);
      const alive = await register(other.url, ['job.completed']);
      expect((await fetcher.http.delete(`/v1/management/webhooks/${deleted.id}`)).status).toBe(204);
      const before = receiver.received.length;
      const jobId = await submit('accounts');
      await waitForJob(fetcher.http, jobId);
      await eventually(() => other.received.some((d) => d.json.jobId === jobId), 30_000, 'the live webhook’s delivery');
      expect(receiver.received.length).toBe(before);
      expect(webhookSignatureProblem(alive.secret, other.received[0])).toBeUndefined();
      expect((await fetcher.http.get(`/v1/management/webhooks/${deleted.id}`)).status).toBe(404);
    } finally {
      await other.close();
    }
  }, 60_000);
});
