import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import type { PeriodicTask } from '../common/clock/periodic-task.js';
import { Scheduler } from '../common/clock/scheduler.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Metrics } from '../common/metrics/metrics.port.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { nextRetry, type RetryPolicy } from './webhook-backoff.js';
import { WebhookDeliveryRepository, type AttemptOutcome, type ClaimedDelivery } from './webhook-delivery.repository.js';
import { WebhookSender, type SendResult } from './webhook-sender.js';
import { signatureHeaders } from './webhook-signature.js';

/** The jitter's source of randomness (specs pin it). */
export const WEBHOOK_RANDOM = Symbol('WEBHOOK_RANDOM');

/** Margin of a claim past the two deadlines: a live dispatcher's claim never runs out mid-attempt. */
const CLAIM_MARGIN_MS = 30_000;

/**
 * Sends webhook deliveries (docs/webhooks.md). Runs in every process that runs the outbox relay,
 * broker or not. Each pass claims due deliveries up to the free share of WEBHOOK_CONCURRENCY and
 * starts them without waiting: a receiver that hangs holds one slot until its deadline, never the
 * loop, a job or another webhook. At most one delivery per webhook is in flight (the claim picks
 * only a webhook's oldest pending delivery), which keeps each receiver's deliveries in order.
 *
 * It does not poll an idle store: a pass runs when this process commits new deliveries or an
 * attempt ends, when the next retry or claim expiry is due, and otherwise once per
 * JOB_RECOVERY_INTERVAL_MS, which finds deliveries left by a process that died before sending.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger(WebhookDispatcher.name);
  readonly dispatcherId: string;
  private readonly loop: PeriodicTask;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly retry: RetryPolicy;
  private readonly claimMs: number;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly idleMs: number;
  private nextPassMs: number;
  private cycle: Promise<void> | undefined;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  private readonly random: () => number;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly cipher: CredentialCipher,
    private readonly guard: EgressGuard,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    ids: IdGenerator,
    scheduler: Scheduler,
    @Optional() @Inject(WEBHOOK_RANDOM) random?: () => number,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.random = random ?? Math.random;
    const settings = config.webhooks;
    this.dispatcherId = ids.processTag();
    this.retry = { baseMs: settings.retryBaseMs, maxMs: settings.retryMaxMs, windowMs: settings.retryWindowMs };
    this.claimMs = settings.connectTimeoutMs + settings.responseTimeoutMs + CLAIM_MARGIN_MS;
    this.concurrency = settings.concurrency;
    this.pollMs = settings.pollIntervalMs;
    this.idleMs = Math.max(settings.pollIntervalMs, config.leases.recoveryIntervalMs);
    this.nextPassMs = this.pollMs;
    this.loop = scheduler.every(() => this.runOnce(), {
      intervalMs: () => this.nextPassMs,
      onError: (error) => {
        // A store that failed the pass is asked again at the short pace, not after an idle sleep.
        this.nextPassMs = this.pollMs;
        this.logger.warn(`webhook dispatch pass failed: ${String(error)}`);
      },
    });
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe ??= this.deliveries.onDeliveriesAdded(() => this.loop.wake());
    this.loop.start();
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by its deadlines). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.loop.stop();
    await this.cycle;
    await Promise.allSettled(this.inFlight);
  }

  /** One claim pass (concurrent calls share it); resolves once the claimed attempts have started. */
  runOnce(): Promise<void> {
    this.cycle ??= this.claimAndStart().finally(() => {
      this.cycle = undefined;
    });
    return this.cycle;
  }

  /** Resolves when every attempt started so far has settled (specs). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.cycle !== undefined) {
      await this.cycle?.catch(() => undefined);
      await Promise.allSettled(this.inFlight);
    }
  }

  private async claimAndStart(): Promise<void> {
    if (this.stopped) return;
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) {
      this.nextPassMs = this.idleMs;
      return;
    }
    const claimed = await this.deliveries.claim(this.dispatcherId, free, this.claimMs, this.clock.now());
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery)
        .catch((error) => this.logger.warn(`webhook delivery ${delivery.id} not settled: ${(error as Error).message}`))
        .finally(() => {
          this.inFlight.delete(attempt);
          // A freed slot, and maybe the next delivery of the same webhook: claim again at once.
          if (!this.stopped) this.loop.wake();
        });
      this.inFlight.add(attempt);
    }
    // Every slot taken: the next pass comes when one frees (or the idle sweep, whichever first).
    this.nextPassMs = claimed.length === free ? this.idleMs : await this.delayUntilNextDue();
  }

  private async delayUntilNextDue(): Promise<number> {
    const due = await this.deliveries.nextDueAt();
    if (due === null) return this.idleMs;
    const waitMs = due.getTime() - this.clock.nowMs();
    // Due already but not claimed: another dispatcher holds it this instant; ask again soon.
    return waitMs <= 0 ? this.pollMs : Math.min(waitMs, this.idleMs);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = this.clock.now();
    const result = await this.send(delivery, startedAt);
    const latencyMs = 'statusCode' in result ? this.clock.nowMs() - startedAt.getTime() : null;
    const ok = 'statusCode' in result && result.statusCode >= 200 && result.statusCode < 300;
    const outcome: AttemptOutcome = {
      statusCode: 'statusCode' in result ? result.statusCode : null,
      latencyMs,
      error: 'error' in result ? result.error : ok ? null : `receiver answered ${(result as { statusCode: number }).statusCode}`,
      attemptedAt: startedAt,
    };
    if (ok) {
      await this.deliveries.settle(delivery, this.dispatcherId, outcome, { state: 'delivered' });
      this.metrics?.webhookAttempted('delivered');
      return;
    }
    const decision = nextRetry(this.retry, delivery.attempts + 1, delivery.createdAt, this.clock.now(), this.random);
    if (decision.dead) {
      await this.deliveries.settle(delivery, this.dispatcherId, outcome, { state: 'dead' });
      this.metrics?.webhookAttempted('dead');
      this.logger.warn(`webhook delivery ${delivery.id} is dead after ${delivery.attempts + 1} attempt(s): ${outcome.error}`, {
        webhookId: delivery.webhookId,
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        jobId: delivery.jobId,
      });
      return;
    }
    await this.deliveries.settle(delivery, this.dispatcherId, outcome, { state: 'pending', nextAttemptAt: decision.nextAttemptAt });
    this.metrics?.webhookAttempted('retry');
  }

  /** Resolve and check the host now (an answer that changed since registration is checked again), then POST to that address. */
  private async send(delivery: ClaimedDelivery, at: Date): Promise<SendResult> {
    const url = new URL(delivery.url);
    let target;
    try {
      target = await this.guard.resolveTarget(url.hostname, 'webhook');
    } catch (error) {
      return { error: `egress refused or unresolved: ${(error as Error).message}` };
    }
    const body = Buffer.from(JSON.stringify(delivery.payload), 'utf8');
    let secret: string;
    try {
      secret = this.cipher.decrypt(delivery.secretCiphertext, delivery.keyVersion);
    } catch (error) {
      // Its key version is not configured (CredentialKeyError names the variable, never key material).
      return { error: `signing secret cannot be opened: ${(error as Error).message}` };
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Fetcher-Webhooks/${this.config.version}`,
      'x-webhook-delivery-id': delivery.id,
      'x-event-id': delivery.eventId,
      'x-event-type': delivery.eventType,
      ...signatureHeaders(secret, { deliveryId: delivery.id, t: Math.floor(at.getTime() / 1000), body }),
    };
    return this.sender.send({ url, target, headers, body });
  }
}
