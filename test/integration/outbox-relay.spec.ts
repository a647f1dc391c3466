import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import amqp from 'amqplib';
import type { DataSource, QueryDeepPartialEntity } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/common/clock/testing/manual-clock.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import type { EventPublisher, OutboundEvent } from '../../src/events/event-publisher.port.js';
import { EventSigner } from '../../src/events/event-signature.js';
import { OutboxRelay } from '../../src/events/outbox-relay.service.js';
import { OutboxRepository } from '../../src/events/outbox.repository.js';
import { RmqEventPublisher } from '../../src/events/rmq-event.publisher.js';
import { OUTBOX_EVENT_ENTITY, type OutboxEventRecord } from '../../src/events/outbox.entity.js';
import { openDataSource } from '../../src/persistence/persistence.module.js';
import { storeOptions } from '../../src/bootstrap/store-schema.js';
import { waitUntil } from '../helpers/event-consumer.js';
import { eventSigningKey, signatureProblem } from '../helpers/event-signature-check.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

const RMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
const RELAY_CONFIG = { events: { relayIntervalMs: 60_000 } } as AppConfig;
const run = randomUUID().slice(0, 8);

/** A migrated store of the given kind in a place of its own. */
async function openStore(kind: 'sqlite' | 'postgres', prefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), `fetcher-${prefix}-`));
  const pg: TempDatabase | undefined = kind === 'postgres' ? await createTempDatabase(prefix) : undefined;
  const config = loadAppConfig({ DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, ...(pg ? { DATABASE_URL: pg.url } : {}) });
  const dataSource = await openDataSource(storeOptions(config));
  return {
    dataSource,
    async close() {
      await dataSource.destroy();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function insertEvent(dataSource: DataSource, id: string, createdAt: Date, eventType = 'job.completed'): Promise<unknown> {
  const row: OutboxEventRecord = {
    id,
    jobId: randomUUID(),
    eventType,
    payload: { eventId: id },
    createdAt,
    publishedAt: null,
    attempts: 0,
    nextAttemptAt: createdAt,
    lastError: null,
    claimedBy: null,
    claimedUntil: null,
  };
  return dataSource.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).insert(row as QueryDeepPartialEntity<OutboxEventRecord>);
}

describe.each(['sqlite', 'postgres'] as const)('outbox relay order on %s', (kind) => {
  let store: Awaited<ReturnType<typeof openStore>>;

  beforeAll(async () => {
    store = await openStore(kind, 'outbox_order');
  });
  afterAll(async () => {
    await store?.close();
  });

  it('publishes by creation time, then id, however the times print', async () => {
    // Chosen so that sorting by String(created_at) (weekday first, no milliseconds) or by id
    // gives another order: Tue 02 < Fri 05 < Mon 08 by time, Fri < Mon < Tue as text; a and b
    // share their second; d and e share their instant, so the id decides.
    const events = [
      { id: `${run}-4-a`, at: '2025-12-02T10:00:00.100Z' },
      { id: `${run}-1-b`, at: '2025-12-02T10:00:00.900Z' },
      { id: `${run}-3-c`, at: '2025-12-05T09:00:00.000Z' },
      { id: `${run}-2-d`, at: '2025-12-08T08:00:00.000Z' },
      { id: `${run}-5-e`, at: '2025-12-08T08:00:00.000Z' },
    ];
    // Inserted newest first, so neither insertion nor physical order can pass for the right one.
    for (const { id, at } of [...events].reverse()) await insertEvent(store.dataSource, id, new Date(at));

    const sent: string[] = [];
    const publisher: EventPublisher = {
      kind: 'recording',
      publish: async (event: OutboundEvent) => void sent.push(event.id),
      ping: async () => undefined,
      close: async () => undefined,
    };
    const outbox = new OutboxRepository(store.dataSource);
    await new OutboxRelay(RELAY_CONFIG, outbox, publisher).runOnce();

    expect(sent).toEqual(events.map((e) => e.id));
    expect(await outbox.backlog()).toBe(0);
  });

  it('claims a batch at a time, oldest first, and never the same event to two relays', async () => {
    const base = Date.parse('2025-11-03T00:00:00.000Z');
    const ids = Array.from({ length: 6 }, (_, i) => `${run}-batch-${i}`);
    for (const [i, id] of ids.entries()) await insertEvent(store.dataSource, id, new Date(base + i * 86_400_000 + i * 7));
    const outbox = new OutboxRepository(store.dataSource);

    const [first, second] = await Promise.all([outbox.claim('relay-a', 3, 30_000), outbox.claim('relay-b', 3, 30_000)]);
    const claimed = [...first, ...second].map((e) => e.id);
    expect(new Set(claimed).size).toBe(6);
    // Each relay's batch is in order; together they are the six oldest.
    for (const batch of [first, second]) expect(batch.map((e) => e.id)).toEqual(batch.map((e) => e.id).sort());
    expect([...claimed].sort()).toEqual(ids);
    expect(await outbox.claim('relay-c', 10, 30_000)).toEqual([]);
  });
});

describe('outbox relay and RabbitMQ routing', () => {
  const exchange = `fetcher-test-unroutable-${run}`;
  let store: Awaited<ReturnType<typeof openStore>>;
  let publisher: RmqEventPublisher;
  let connection: amqp.ChannelModel;
  let channel: amqp.Channel;
  const received: { routingKey: string; messageId: string }[] = [];
  /** Per received message: its body and `t` as sent, and what an independent signature check says of it. */
  const signatures: { messageId: string; body: string; t: unknown; signature: unknown; problem: string | null }[] = [];
  // Behind the real time, inside the window a consumer accepts, so a spec can move it forward.
  const clock = new ManualClock(Date.now() - 200_000);
  const publishSeconds = () => Math.floor(clock.nowMs() / 1000);

  beforeAll(async () => {
    store = await openStore('postgres', 'outbox_routing');
    publisher = new RmqEventPublisher(RMQ_URL, exchange, EventSigner.fromMasterKey(Buffer.from(TEST_MASTER_KEY, 'base64'), '1'), clock);
    connection = await amqp.connect(RMQ_URL);
    channel = await connection.createChannel();
  });
  afterAll(async () => {
    await publisher?.close();
    await channel?.deleteExchange(exchange).catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await store?.close();
  });

  /** A consumer's queue, bound for these routing keys only. */
  async function bindQueue(...routingKeys: string[]): Promise<void> {
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true });
    for (const key of routingKeys) await channel.bindQueue(queue, exchange, key);
    await channel.consume(queue, (message) => {
      if (!message) return;
      received.push({ routingKey: message.fields.routingKey, messageId: String(message.properties.messageId) });
      const headers = message.properties.headers ?? {};
      signatures.push({
        messageId: String(message.properties.messageId),
        body: message.content.toString('utf8'),
        t: headers.t,
        signature: headers['x-message-signature'],
        problem: signatureProblem(
          { exchange: message.fields.exchange, routingKey: message.fields.routingKey, headers, content: message.content },
          eventSigningKey(),
        ),
      });
      channel.ack(message);
    });
  }

  const row = async (id: string) =>
    (
      await store.dataSource.query('SELECT published_at, attempts, last_error, next_attempt_at FROM outbox_events WHERE id = $1', [id])
    )[0] as {
      published_at: Date | null;
      attempts: number;
      last_error: string | null;
      next_attempt_at: Date;
    };

  it('keeps an event no queue is bound for in the outbox, and delivers it once a queue is bound', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const outbox = new OutboxRepository(store.dataSource);
    const relay = new OutboxRelay(RELAY_CONFIG, outbox, publisher);
    await bindQueue('job.failed');
    const completed = `fetcher.job.completed.${run}`;
    const failed = `fetcher.job.failed.${run}`;
    await insertEvent(store.dataSource, completed, new Date(Date.now() - 2_000), 'job.completed');
    await insertEvent(store.dataSource, failed, new Date(Date.now() - 1_000), 'job.failed');

    const before = Date.now();
    const firstTry = publishSeconds();
    await relay.runOnce();
    clock.advance(100_000);
    // The broker confirmed both; only the routed one counts as published.
    expect((await row(failed)).published_at).not.toBeNull();
    const kept = await row(completed);
    expect(kept.published_at).toBeNull();
    expect(Number(kept.attempts)).toBe(1);
    expect(kept.last_error).toBe(`no queue is bound to exchange "${exchange}" for routing key "job.completed" (312 NO_ROUTE)`);
    expect(kept.next_attempt_at.getTime()).toBeGreaterThanOrEqual(before + 500);
    expect(warn.mock.calls.map(([message]) => String(message))).toContainEqual(
      expect.stringMatching(
        new RegExp(`^event ${completed} NOT published, kept in the outbox and retried with backoff: no queue is bound`),
      ),
    );
    await waitUntil(() => received.some((m) => m.messageId === failed), 5_000, 'the routed job.failed event');
    expect(received.map((m) => m.messageId)).toEqual([failed]);
    warn.mockRestore();

    // Not due yet: the next pass leaves it alone.
    await relay.runOnce();
    expect(Number((await row(completed)).attempts)).toBe(1);

    await bindQueue('job.completed');
    await waitUntil(
      async () => {
        await relay.runOnce();
        return (await row(completed)).published_at !== null;
      },
      10_000,
      'the held event to be published after binding',
    );
    await waitUntil(() => received.some((m) => m.messageId === completed), 5_000, 'the job.completed event');
    expect(received).toEqual([
      { routingKey: 'job.failed', messageId: failed },
      { routingKey: 'job.completed', messageId: completed },
    ]);
    expect(await outbox.backlog()).toBe(0);
    // The retry was signed when it was sent, not when the event was first tried.
    expect(signatures.map(({ messageId, t, problem }) => ({ messageId, t, problem }))).toEqual([
      { messageId: failed, t: String(firstTry), problem: null },
      { messageId: completed, t: String(firstTry + 100), problem: null },
    ]);
  });

  it('signs every publish afresh: an event sent twice carries each time it was sent, over the JSON body sent', async () => {
    await bindQueue('job.resent');
    const event: OutboundEvent = { id: `fetcher.job.resent.${run}`, type: 'job.resent', payload: { jobId: randomUUID(), note: 'é ✓' } };
    const sentAt = [publishSeconds()];
    await publisher.publish(event);
    clock.advance(60_000);
    sentAt.push(publishSeconds());
    await publisher.publish(event);

    await waitUntil(() => signatures.filter((s) => s.messageId === event.id).length === 2, 5_000, 'both copies');
    const copies = signatures.filter((s) => s.messageId === event.id);
    expect(copies.map(({ body, t, problem }) => ({ body, t, problem }))).toEqual(
      sentAt.map((t) => ({ body: JSON.stringify(event.payload), t: String(t), problem: null })),
    );
    expect(copies[0].signature).not.toBe(copies[1].signature);
  });
});
