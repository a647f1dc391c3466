import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RandomIdGenerator } from '../../src/common/clock/id-generator.js';
import { TimerScheduler } from '../../src/common/clock/scheduler.js';
import { ManualClock } from '../../src/common/clock/testing/manual-clock.js';
import { ManualScheduler } from '../../src/common/clock/testing/manual-scheduler.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { CredentialCipher } from '../../src/datasource/credential-cipher.service.js';
import { EgressGuard } from '../../src/engine/egress/egress-guard.js';
import { OutboxRepository } from '../../src/events/outbox.repository.js';
import { JOB_ENTITY, type JobRecord } from '../../src/job/job.entity.js';
import { JobRepository } from '../../src/job/job.repository.js';
import { JobStatus } from '../../src/job/job-status.js';
import { failedEvent } from '../../src/job/terminal-events.js';
import { openDataSource } from '../../src/persistence/persistence.module.js';
import { storeOptions } from '../../src/bootstrap/store-schema.js';
import { WebhookDeliveryRepository } from '../../src/webhook/webhook-delivery.repository.js';
import { WebhookDispatcher } from '../../src/webhook/webhook-dispatcher.service.js';
import { WebhookSender, type SendResult, type WebhookRequest } from '../../src/webhook/webhook-sender.js';
import { newWebhookSecret } from '../../src/webhook/webhook-signature.js';
import { WEBHOOK_ENTITY, type WebhookRecord } from '../../src/webhook/webhook.entity.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

describe.each(['postgres', 'sqlite'] as const)('webhook deliveries on %s', (kind) => {
  let dataSource: DataSource;
  let config: AppConfig;
  let deliveries: WebhookDeliveryRepository;
  let jobs: JobRepository;
  let cipher: CredentialCipher;
  let pgDatabase: TempDatabase | undefined;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-hooks-'));
    if (kind === 'postgres') pgDatabase = await createTempDatabase('webhook_store');
    config = loadAppConfig({ DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}) });
    dataSource = await openDataSource(storeOptions(config));
    deliveries = new WebhookDeliveryRepository(dataSource, new RandomIdGenerator());
    jobs = new JobRepository(dataSource, new OutboxRepository(dataSource), deliveries);
    cipher = new CredentialCipher(config);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await pgDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const webhook = async (productName: string, events: WebhookRecord['events'], deletedAt: Date | null = null): Promise<string> => {
    const id = uuidv7();
    await dataSource.getRepository(WEBHOOK_ENTITY).insert({
      id,
      productName,
      url: 'http://receiver.example/hook',
      events,
      description: null,
      secretCiphertext: cipher.encrypt(newWebhookSecret()),
      keyVersion: cipher.keyVersion,
      createdAt: new Date(),
      deletedAt,
    });
    return id;
  };
  const processingJob = async (productName: string): Promise<JobRecord> => {
    const now = new Date();
    const hash = uuidv7();
    const job = {
      id: uuidv7(),
      status: JobStatus.Processing,
      requestHash: hash,
      dedupKey: hash,
      productName,
      metadata: { source: productName },
      mappedFields: { pg: { accounts: ['id'] } },
      createdAt: now,
      updatedAt: now,
      attempts: 1,
      workerId: 'w1',
    } as Partial<JobRecord>;
    await dataSource.getRepository(JOB_ENTITY).insert(job);
    return job as JobRecord;
  };
  const rowsOf = (jobId: string): Promise<{ webhook_id: string; payload: unknown; event_id: string }[]> =>
    dataSource.query(`SELECT webhook_id, payload, event_id FROM webhook_deliveries WHERE job_id = ${kind === 'postgres' ? '$1' : '?'}`, [
      jobId,
    ]);

  it('inserts one delivery per live subscribed webhook of the job’s product, with the terminal status, and none when it is refused', async () => {
    const product = `p-${uuidv7()}`;
    const subscribed = await webhook(product, ['job.completed', 'job.failed']);
    await webhook(product, ['job.completed']);
    await webhook(product, ['job.failed'], new Date());
    await webhook(`other-${uuidv7()}`, ['job.failed']);
    const job = await processingJob(product);
    const error = { code: 'FET-1060', message: 'bad' };
    expect(await jobs.fail(job.id, error, failedEvent(job, error))).toBeInstanceOf(Date);
    const rows = await rowsOf(job.id);
    expect(rows.map((row) => row.webhook_id)).toEqual([subscribed]);
    const payload = typeof rows[0].payload === 'string' ? JSON.parse(rows[0].payload) : rows[0].payload;
    const [outbox] = await dataSource.query(`SELECT payload FROM outbox_events WHERE id = ${kind === 'postgres' ? '$1' : '?'}`, [
      rows[0].event_id,
    ]);
    expect(payload).toEqual(typeof outbox.payload === 'string' ? JSON.parse(outbox.payload) : outbox.payload);
    // A refused transition (already failed) writes neither the status nor a delivery.
    expect(await jobs.fail(job.id, error, failedEvent(job, error))).toBeNull();
    expect(await rowsOf(job.id)).toHaveLength(1);
  });

  it('lets two dispatchers claim disjoint deliveries, one per webhook at a time, oldest first', async () => {
    const product = `p-${uuidv7()}`;
    const hooks = [await webhook(product, ['job.failed']), await webhook(product, ['job.failed'])];
    const jobIds: string[] = [];
    for (let index = 0; index < 4; index++) {
      const job = await processingJob(product);
      const error = { code: 'FET-1060', message: `bad ${index}` };
      await jobs.fail(job.id, error, failedEvent(job, error));
      jobIds.push(job.id);
    }
    const later = new Date(Date.now() + 1_000);
    const [a, b] = await Promise.all([deliveries.claim('a', 10, 60_000, later), deliveries.claim('b', 10, 60_000, later)]);
    const mine = [...a, ...b].filter((delivery) => hooks.includes(delivery.webhookId));
    // Each webhook's oldest delivery, once: the other three of each wait until it is settled.
    expect(mine.map((delivery) => delivery.webhookId).sort()).toEqual([...hooks].sort());
    expect(mine.every((delivery) => delivery.jobId === jobIds[0])).toBe(true);
    expect(await deliveries.claim('c', 10, 60_000, later)).toEqual([]);
    const outcome = { statusCode: 200, latencyMs: 1, error: null, attemptedAt: later };
    for (const delivery of a) expect(await deliveries.settle(delivery, 'a', outcome, { state: 'delivered' })).toBe(true);
    for (const delivery of b) expect(await deliveries.settle(delivery, 'a', outcome, { state: 'delivered' })).toBe(false);
    for (const delivery of b) expect(await deliveries.settle(delivery, 'b', outcome, { state: 'delivered' })).toBe(true);
    const next = await deliveries.claim('c', 10, 60_000, later);
    expect(next.filter((d) => hooks.includes(d.webhookId)).map((d) => d.jobId)).toEqual([jobIds[1], jobIds[1]]);
  });

  it('retries a failing receiver until the window from the event is over, then marks the delivery dead', async () => {
    const product = `p-${uuidv7()}`;
    const hook = await webhook(product, ['job.failed']);
    const job = await processingJob(product);
    const error = { code: 'FET-1060', message: 'bad' };
    await jobs.fail(job.id, error, failedEvent(job, error));
    const clock = new ManualClock(new Date(Date.now() + 1_000));
    let sent = 0;
    const sender = new (class extends WebhookSender {
      async send(request: WebhookRequest): Promise<SendResult> {
        // Deliveries of the other tests' webhooks are due too: count this job's only.
        if (request.headers['x-event-id'] === `fetcher.job.failed.${job.id}`) sent++;
        return { statusCode: 503 };
      }
    })();
    const guard = new EgressGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']);
    const windowed = { ...config, webhooks: { ...config.webhooks, retryBaseMs: 1_000, retryMaxMs: 60_000, retryWindowMs: 600_000 } };
    const ids = new RandomIdGenerator();
    const dispatcher = new WebhookDispatcher(windowed, deliveries, cipher, guard, sender, clock, ids, new TimerScheduler(), () => 1 - 1e-9);
    const state = async () =>
      (
        await dataSource.query(`SELECT state, attempts FROM webhook_deliveries WHERE webhook_id = ${kind === 'postgres' ? '$1' : '?'}`, [
          hook,
        ])
      )[0];
    for (let pass = 0; pass < 100 && (await state()).state === 'pending'; pass++) {
      await dispatcher.runOnce();
      await dispatcher.idle();
      clock.advance(60_000);
    }
    const final = await state();
    expect(final.state).toBe('dead');
    expect(Number(final.attempts)).toBe(sent);
    // 1 s, 2 s … 32 s, then 60 s each: about 15 attempts in 10 minutes.
    expect(sent).toBeGreaterThan(8);
    expect(sent).toBeLessThan(20);
    const [{ n }] = await dataSource.query(
      `SELECT count(*) AS n FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ${kind === 'postgres' ? '$1' : '?'}`,
      [hook],
    );
    expect(Number(n)).toBe(sent);
    await dispatcher.stop();
  });

  it('asks an idle store nothing until this process commits a delivery, sends it at once, then sleeps until its retry is due', async () => {
    // The other tests' leftovers would keep this dispatcher busy: this one starts from an empty line.
    await dataSource.query(`UPDATE webhook_deliveries SET state = 'dead' WHERE state = 'pending'`);
    const product = `p-${uuidv7()}`;
    await webhook(product, ['job.failed']);
    const scheduler = new ManualScheduler(new ManualClock(new Date(Date.now() + 1_000)));
    const answers = [503, 200];
    const sent: string[] = [];
    const sender = new (class extends WebhookSender {
      async send(request: WebhookRequest): Promise<SendResult> {
        sent.push(request.headers['x-event-id']);
        return { statusCode: answers.shift() ?? 200 };
      }
    })();
    const guard = new EgressGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']);
    const paced = {
      ...config,
      leases: { ...config.leases, recoveryIntervalMs: 3_600_000 },
      webhooks: { ...config.webhooks, pollIntervalMs: 1_000, retryBaseMs: 5_000, retryMaxMs: 60_000, retryWindowMs: 86_400_000 },
    };
    const claims = vi.spyOn(deliveries, 'claim');
    const ids = new RandomIdGenerator();
    const dispatcher = new WebhookDispatcher(paced, deliveries, cipher, guard, sender, scheduler.clock, ids, scheduler, () => 1 - 1e-9);
    try {
      dispatcher.start();
      await scheduler.runDue();
      expect(claims).toHaveBeenCalledTimes(1);
      // Ten minutes of an idle store: not one claim.
      await scheduler.advance(600_000);
      expect(claims).toHaveBeenCalledTimes(1);

      const job = await processingJob(product);
      const error = { code: 'FET-1060', message: 'bad' };
      await jobs.fail(job.id, error, failedEvent(job, error));
      await scheduler.runDue();
      await dispatcher.idle();
      expect(sent).toEqual([`fetcher.job.failed.${job.id}`]);

      // The 503's retry is due in just under 5 s: nothing before, the second attempt then.
      await scheduler.advance(4_000);
      await dispatcher.idle();
      expect(sent).toHaveLength(1);
      await scheduler.advance(1_500);
      await dispatcher.idle();
      expect(sent).toEqual([`fetcher.job.failed.${job.id}`, `fetcher.job.failed.${job.id}`]);
      const [{ state }] = await dataSource.query(
        `SELECT state FROM webhook_deliveries WHERE job_id = ${kind === 'postgres' ? '$1' : '?'}`,
        [job.id],
      );
      expect(state).toBe('delivered');

      // Delivered, nothing pending: idle again until the recovery-paced sweep.
      await scheduler.runDue();
      const settledClaims = claims.mock.calls.length;
      await scheduler.advance(3_599_000);
      expect(claims).toHaveBeenCalledTimes(settledClaims);
      await scheduler.advance(1_000);
      expect(claims).toHaveBeenCalledTimes(settledClaims + 1);
    } finally {
      claims.mockRestore();
      await dispatcher.stop();
    }
  });
});
