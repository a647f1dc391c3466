import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** A receiver that hangs holds only its own deliveries (docs/webhooks.md, "Ordering and isolation"). */
describe('a hanging webhook receiver', () => {
  const product = `hang-${randomUUID().slice(0, 8)}`;
  const source = useTempDatabase('e2e_hooks_hang');
  let fetcher: EmbeddedFetcher;
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;

  beforeAll(async () => {
    await source().query('CREATE TABLE accounts (id int PRIMARY KEY); INSERT INTO accounts VALUES (1), (2);');
    hanging = await startWebhookReceiver(() => 'hang');
    healthy = await startWebhookReceiver();
    // Deadlines past the 60 s hang: the attempt really stays open while the rest goes on.
    fetcher = await startEmbeddedFetcher({
      ALLOW_PRIVATE_HOSTS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '90000',
      SHUTDOWN_GRACE_MS: '1000',
    });
    await registerPostgres(fetcher.http, source(), { configName: 'pg_source', product });
  });
  afterAll(async () => {
    // Closing the receivers first ends the hung attempt, so the app's shutdown has nothing to wait for.
    await hanging?.close();
    await healthy?.close();
    await fetcher?.close();
  });

  it('delays no job and no other webhook', async () => {
    for (const receiver of [hanging, healthy]) {
      const response = await fetcher.http
        .post('/v1/management/webhooks')
        .set('X-Product-Name', product)
        .send({ url: receiver.url, events: ['job.completed'] });
      expect(response.status).toBe(201);
    }
    const ids: string[] = [];
    for (let index = 0; index < 10; index++) {
      const response = await fetcher.http
        .post('/v1/fetcher')
        .send({ dataRequest: { mappedFields: { pg_source: { accounts: ['*'] } } }, metadata: { source: product, n: String(index) } });
      ids.push(response.body.jobId as string);
    }
    for (const id of ids) expect((await waitForJob(fetcher.http, id)).status).toBe('completed');
    await eventually(() => healthy.received.length >= 10, 30_000, 'the healthy receiver’s ten deliveries');
    // Progress, not timing: all ten went to the healthy receiver while the hung one still holds its first.
    expect(new Set(healthy.received.map((d) => d.json.jobId))).toEqual(new Set(ids));
    expect(hanging.received).toHaveLength(1);
    expect(hanging.received[0].answered).toBe('hung');
  }, 120_000);
});
