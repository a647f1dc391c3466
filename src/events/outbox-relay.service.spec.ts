import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { UnroutableEventError, type EventPublisher, type OutboundEvent } from './event-publisher.port.js';
import { OutboxRelay } from './outbox-relay.service.js';
import type { ClaimedEvent, OutboxRepository } from './outbox.repository.js';

const CONFIG = { events: { relayIntervalMs: 60_000 } } as AppConfig;

const event = (id: string, type = 'job.completed', attempts = 0): ClaimedEvent => ({ id, type, payload: { jobId: id }, attempts });

/** An outbox holding one claimed batch, recording what the relay does with each event. */
function fakeOutbox(batch: ClaimedEvent[]) {
  const published: string[] = [];
  const failed: { id: string; error: string; nextAttemptAt: Date }[] = [];
  const outbox = {
    claim: vi.fn(async () => batch),
    markPublished: vi.fn(async (id: string) => void published.push(id)),
    markFailed: vi.fn(
      async (id: string, _relay: string, error: string, nextAttemptAt: Date) => void failed.push({ id, error, nextAttemptAt }),
    ),
  };
  return { outbox: outbox as unknown as OutboxRepository, published, failed };
}

/** A broker that routes nothing with `unroutable` keys and is away from the `awayFrom`-th publish on. */
function fakePublisher(options: { unroutable?: string[]; awayFrom?: number } = {}) {
  const sent: string[] = [];
  const publisher: EventPublisher = {
    kind: 'fake',
    async publish(e: OutboundEvent) {
      if (options.awayFrom !== undefined && sent.length >= options.awayFrom) throw new Error('connect ECONNREFUSED');
      sent.push(e.id);
      if (options.unroutable?.includes(e.type)) throw new UnroutableEventError(e.id, e.type, 'exchange "x"', '312 NO_ROUTE');
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
  return { publisher, sent };
}

describe('OutboxRelay', () => {
  afterEach(() => vi.restoreAllMocks());

  it('publishes the claimed batch in its order and marks each published', async () => {
    const { outbox, published, failed } = fakeOutbox([event('e1'), event('e2', 'job.failed'), event('e3')]);
    const { publisher, sent } = fakePublisher();
    await new OutboxRelay(CONFIG, outbox, publisher).runOnce();
    expect(sent).toEqual(['e1', 'e2', 'e3']);
    expect(published).toEqual(['e1', 'e2', 'e3']);
    expect(failed).toEqual([]);
  });

  it('keeps an unroutable event in the outbox with a backoff, holds back later events of its key, and goes on with other keys', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { outbox, published, failed } = fakeOutbox([
      event('c1', 'job.completed', 2),
      event('f1', 'job.failed'),
      event('c2'),
      event('f2', 'job.failed'),
    ]);
    const { publisher, sent } = fakePublisher({ unroutable: ['job.completed'] });
    const before = Date.now();
    await new OutboxRelay(CONFIG, outbox, publisher).runOnce();

    expect(sent).toEqual(['c1', 'f1', 'f2']);
    expect(published).toEqual(['f1', 'f2']);
    expect(failed.map((f) => f.id)).toEqual(['c1', 'c2']);
    expect(failed[0].error).toBe('no queue is bound to exchange "x" for routing key "job.completed" (312 NO_ROUTE)');
    expect(failed[1].error).toBe(`held back: ${failed[0].error}`);
    // 500 ms × 2^attempts: c1 had failed twice before.
    expect(failed[0].nextAttemptAt.getTime() - before).toBeGreaterThanOrEqual(2_000);
    expect(failed[1].nextAttemptAt.getTime() - before).toBeGreaterThanOrEqual(500);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(
      /^event c1 and 1 more job\.completed event\(s\) NOT published, kept in the outbox and retried with backoff: no queue is bound/,
    );
    expect(warn.mock.calls[0][0]).toContain('Consumers must bind their queues');
  });

  it('puts the failing event and the rest of the batch back when the broker is away', async () => {
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { outbox, published, failed } = fakeOutbox([event('e1'), event('e2'), event('e3')]);
    const { publisher } = fakePublisher({ awayFrom: 1 });
    await new OutboxRelay(CONFIG, outbox, publisher).runOnce();
    expect(published).toEqual(['e1']);
    expect(failed.map((f) => [f.id, f.error])).toEqual([
      ['e2', 'connect ECONNREFUSED'],
      ['e3', 'connect ECONNREFUSED'],
    ]);
  });
});
