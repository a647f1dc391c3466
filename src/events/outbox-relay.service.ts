import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { EVENT_PUBLISHER, type EventPublisher } from './event-publisher.port.js';
import { OutboxRepository } from './outbox.repository.js';

const BATCH = 50;
const CLAIM_MS = 30_000;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 15_000;

/**
 * Relays terminal events from the outbox to the broker, oldest first, until the broker takes
 * each (at least once; consumers dedupe on the event id). Every process may run one: claims keep
 * two relays from publishing the same event in normal operation.
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  readonly relayId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private cycle: Promise<void> | undefined;
  private stopped = true;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    @Optional() @Inject(EVENT_PUBLISHER) private readonly publisher?: EventPublisher,
  ) {}

  start(): void {
    if (!this.publisher || !this.stopped) return;
    this.stopped = false;
    const tick = () => {
      this.runOnce().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.config.events.relayIntervalMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops polling and waits for a cycle in progress (its claims are released or published). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.cycle;
  }

  /** One pass over the due events (concurrent calls share it). */
  runOnce(): Promise<void> {
    this.cycle ??= this.relay().finally(() => {
      this.cycle = undefined;
    });
    return this.cycle;
  }

  private async relay(): Promise<void> {
    const publisher = this.publisher;
    if (!publisher) return;
    let events;
    try {
      events = await this.outbox.claim(this.relayId, BATCH, CLAIM_MS);
    } catch (error) {
      this.logger.warn(`outbox unavailable: ${(error as Error).message}`);
      return;
    }
    for (const [index, event] of events.entries()) {
      try {
        await publisher.publish(event);
        await this.outbox.markPublished(event.id, this.relayId);
      } catch (error) {
        // The broker is away: put this event and the rest of the batch back, with a backoff.
        for (const pending of events.slice(index)) {
          const delay = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.min(10, pending.attempts));
          await this.outbox.markFailed(pending.id, this.relayId, (error as Error).message ?? String(error), new Date(Date.now() + delay)).catch(() => undefined);
        }
        this.logger.warn(`event ${event.id} not delivered, will retry: ${(error as Error).message}`);
        return;
      }
    }
  }
}
