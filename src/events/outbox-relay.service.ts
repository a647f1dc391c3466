import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock/clock.js';
import { IdGenerator, RandomIdGenerator } from '../common/clock/id-generator.js';
import type { PeriodicTask } from '../common/clock/periodic-task.js';
import { Scheduler, TimerScheduler } from '../common/clock/scheduler.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Metrics } from '../common/metrics/metrics.port.js';
import { EVENT_PUBLISHER, UnroutableEventError, type EventPublisher } from './event-publisher.port.js';
import { OutboxRepository, type ClaimedEvent } from './outbox.repository.js';

const BATCH = 50;
const CLAIM_MS = 30_000;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 15_000;

/**
 * Relays terminal events from the outbox to the broker, oldest first, until the broker takes
 * each and routes it to a queue (at least once; consumers dedupe on the event id). Every process
 * may run one: claims keep two relays from publishing the same event in normal operation.
 *
 * An event the broker cannot route (no queue bound for its routing key) stays in the outbox with
 * its attempts and last_error, and is retried with the same backoff as a broker that is away:
 * the outbox is the record until a consumer can have the event.
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  readonly relayId: string;
  private readonly loop: PeriodicTask;
  private cycle: Promise<void> | undefined;

  // The clock, ids and timers default to the real ones for a relay built by hand around a store.
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly outbox: OutboxRepository,
    @Optional() @Inject(EVENT_PUBLISHER) private readonly publisher?: EventPublisher,
    private readonly clock: Clock = new SystemClock(),
    ids: IdGenerator = new RandomIdGenerator(),
    scheduler: Scheduler = new TimerScheduler(),
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.relayId = ids.processTag();
    this.loop = scheduler.every(() => this.runOnce(), {
      intervalMs: config.events.relayIntervalMs,
      onError: (error) => this.logger.warn(`outbox relay pass failed: ${String(error)}`),
    });
  }

  /** Polls the outbox, at once and then every EVENTS_RELAY_INTERVAL_MS; a relay without a broker has nothing to do. */
  start(): void {
    if (this.publisher) this.loop.start();
  }

  /** Stops polling and waits for a cycle in progress (its claims are released or published). */
  async stop(): Promise<void> {
    await this.loop.stop();
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
    let events: ClaimedEvent[];
    try {
      events = await this.outbox.claim(this.relayId, BATCH, CLAIM_MS);
    } catch (error) {
      this.metrics?.outboxRelayFailed('store_unavailable');
      this.logger.warn(`outbox unavailable: ${(error as Error).message}`);
      return;
    }
    // Per routing key: the first refusal, and the events of that key held back behind it.
    const unroutable = new Map<string, { error: UnroutableEventError; first: ClaimedEvent; held: ClaimedEvent[] }>();
    try {
      for (const [index, event] of events.entries()) {
        const refused = unroutable.get(event.type);
        if (refused !== undefined) {
          // Same key, same fate until a queue is bound; holding them keeps their order, and the
          // broker is spared a publish per event.
          refused.held.push(event);
          await this.retryLater(event, `held back: ${refused.error.message}`);
          continue;
        }
        let delivered = false;
        try {
          await publisher.publish(event);
          delivered = true;
          this.metrics?.outboxEventPublished();
          await this.outbox.markPublished(event.id, this.relayId);
        } catch (error) {
          this.metrics?.outboxRelayFailed(
            delivered ? 'store_unavailable' : error instanceof UnroutableEventError ? 'unroutable' : 'broker_unavailable',
          );
          if (error instanceof UnroutableEventError) {
            // The broker works: events of other keys go on.
            unroutable.set(event.type, { error, first: event, held: [] });
            await this.retryLater(event, error.message);
            continue;
          }
          // The broker is away: put this event and the rest of the batch back, with a backoff.
          for (const pending of events.slice(index)) await this.retryLater(pending, (error as Error).message ?? String(error));
          this.logger.warn(`event ${event.id} not delivered, will retry: ${(error as Error).message}`, eventLogFields(event));
          return;
        }
      }
    } finally {
      for (const [type, { error, first, held }] of unroutable) {
        this.logger.warn(
          `event ${error.eventId}${held.length > 0 ? ` and ${held.length} more ${type} event(s)` : ''} NOT published, kept in the outbox ` +
            `and retried with backoff: ${error.message}. Consumers must bind their queues to the exchange before jobs run.`,
          { ...eventLogFields(first), heldBack: held.length },
        );
      }
    }
  }

  /** Back to the outbox, due again after a backoff that grows with its failed attempts. */
  private async retryLater(event: ClaimedEvent, reason: string): Promise<void> {
    const delay = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.min(10, event.attempts));
    await this.outbox.markFailed(event.id, this.relayId, reason, new Date(this.clock.nowMs() + delay)).catch(() => undefined);
  }
}

/** An event's id, and the job it reports (terminal events carry it in their payload). */
function eventLogFields(event: ClaimedEvent): { eventId: string; eventType: string; jobId?: string } {
  const jobId = event.payload.jobId;
  return { eventId: event.id, eventType: event.type, ...(typeof jobId === 'string' ? { jobId } : {}) };
}
