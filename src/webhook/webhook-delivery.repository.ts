import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { IdGenerator, RandomIdGenerator } from '../common/clock/id-generator.js';
import type { NewOutboxEvent } from '../events/outbox.repository.js';
import { sqlParameters, type SqlParameters } from '../persistence/sql-parameters.js';
import { inTransaction } from '../persistence/transactions.js';
import { storedTime, storedTimeOrNull, timeParam } from './store-time.js';
import type { DeliveryState } from './webhook.entity.js';

/** A delivery a dispatcher holds: what to send and where. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly jobId: string;
  readonly payload: Record<string, unknown>;
  readonly url: string;
  readonly secretCiphertext: string;
  readonly keyVersion: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  /**
   * When its event happened: the retry window runs from here, not from its first attempt, so a
   * delivery held behind its webhook's older ones still goes dead 24 h after its event and a
   * receiver that never comes back does not keep a backlog alive one window at a time.
   */
  readonly createdAt: Date;
}

/** What one HTTP attempt gave. */
export interface AttemptOutcome {
  readonly statusCode: number | null;
  readonly latencyMs: number | null;
  readonly error: string | null;
  readonly attemptedAt: Date;
}

/** A delivery with its attempts, newest first, for GET …/deliveries. */
export interface DeliveryView {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly jobId: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly attemptList: {
    attempt: number;
    statusCode: number | null;
    latencyMs: number | null;
    error: string | null;
    attemptedAt: Date;
  }[];
}

/** A live webhook of a job's product and the events it takes (as stored: JSON text or parsed). */
export interface WebhookSubscription {
  readonly id: string;
  readonly events: unknown;
}

/**
 * webhook_deliveries: one row per (webhook, terminal event), inserted in the job's terminal
 * transaction (fanOut), then claimed and settled by the dispatchers. A webhook's deliveries are
 * sent strictly one after the other, oldest first: only the oldest pending delivery of a webhook
 * is ever claimable, so one webhook has at most one delivery in flight in the whole cluster.
 */
@Injectable()
export class WebhookDeliveryRepository {
  private readonly postgres: boolean;
  private readonly addedListeners = new Set<() => void>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly ids: IdGenerator = new RandomIdGenerator(),
  ) {
    this.postgres = dataSource.options.type === 'postgres';
  }

  /**
   * One pending delivery per live webhook of the job's product subscribed to the event's type, in
   * the caller's transaction: the terminal status commits with its deliveries, or neither does.
   * The payload is the event's body exactly as the broker gets it.
   */
  async fanOut(manager: EntityManager, jobId: string, event: NewOutboxEvent, at: Date): Promise<number> {
    const select = this.statement();
    const hooks: WebhookSubscription[] = await manager.query(
      `SELECT w.id, w.events FROM webhooks w JOIN jobs j ON j.product_name = w.product_name
       WHERE j.id = ${select.bind(jobId)} AND w.deleted_at IS NULL ORDER BY w.id`,
      select.values,
    );
    return this.fanOutTo(manager, hooks, jobId, event, at);
  }

  /** fanOut to webhooks already read (in the same transaction): those subscribed to the event get a delivery. */
  async fanOutTo(
    manager: EntityManager,
    hooks: readonly WebhookSubscription[],
    jobId: string,
    event: NewOutboxEvent,
    at: Date,
  ): Promise<number> {
    const subscribed = hooks.filter((hook) => parseJson<string[]>(hook.events).includes(event.eventType));
    const now = timeParam(this.dataSource, at);
    const payload = this.postgres ? event.payload : JSON.stringify(event.payload);
    for (const hook of subscribed) {
      const insert = this.statement();
      await manager.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, job_id, event_type, payload, state, attempts, next_attempt_at, created_at)
         VALUES (${[this.ids.orderedUuid(), hook.id, event.id, jobId, event.eventType, payload, 'pending', 0, now, now].map((v) => insert.bind(v)).join(', ')})
         ON CONFLICT (webhook_id, event_id) DO NOTHING`,
        insert.values,
      );
    }
    return subscribed.length;
  }

  /** Called after a transaction that fanned deliveries out has committed (in this process). */
  onDeliveriesAdded(listener: () => void): () => void {
    this.addedListeners.add(listener);
    return () => this.addedListeners.delete(listener);
  }

  /** The committing caller of fanOut tells the dispatchers here that there is work (not before: a claim would not see it). */
  announceDeliveries(): void {
    for (const listener of this.addedListeners) listener();
  }

  /**
   * When the next delivery can be claimed: the earliest retry time, or claim expiry, of a pending
   * delivery that heads its webhook's line; null when nothing is pending. A dispatcher with
   * nothing in sight sleeps until then instead of asking the store every second.
   */
  async nextDueAt(): Promise<Date | null> {
    const rows: { due: unknown }[] = await this.dataSource.query(
      `SELECT min(CASE WHEN d.claimed_until IS NOT NULL AND d.claimed_until > d.next_attempt_at THEN d.claimed_until ELSE d.next_attempt_at END) AS due
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE w.deleted_at IS NULL AND d.state = 'pending'
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id AND e.state = 'pending'
                         AND (e.created_at < d.created_at OR (e.created_at = d.created_at AND e.id < d.id)))`,
    );
    return storedTimeOrNull(rows[0]?.due);
  }

  /**
   * Claims up to `limit` due deliveries for `claimMs`, oldest first, each the oldest pending one
   * of its live webhook. PostgreSQL: SKIP LOCKED lets dispatchers claim disjoint sets; SQLite: the
   * due condition repeated in the UPDATE keeps the claim exclusive.
   */
  async claim(dispatcherId: string, limit: number, claimMs: number, nowDate: Date): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const now = timeParam(this.dataSource, nowDate);
    const until = timeParam(this.dataSource, new Date(nowDate.getTime() + claimMs));
    return inTransaction(this.dataSource, async (manager) => {
      const select = this.statement();
      const rows: Record<string, unknown>[] = await manager.query(
        `SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.job_id, d.payload, d.attempts, d.created_at,
                w.url, w.secret_ciphertext, w.key_version
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE w.deleted_at IS NULL AND ${this.due(select, now, 'd')}
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id AND e.state = 'pending'
                           AND (e.created_at < d.created_at OR (e.created_at = d.created_at AND e.id < d.id)))
         ORDER BY d.created_at, d.id LIMIT ${select.bind(limit)} ${this.postgres ? 'FOR UPDATE OF d SKIP LOCKED' : ''}`,
        select.values,
      );
      if (rows.length === 0) return [];
      const update = this.statement();
      const claimed: unknown[] = await manager.query(
        `UPDATE webhook_deliveries SET claimed_by = ${update.bind(dispatcherId)}, claimed_until = ${update.bind(until)}
         WHERE ${this.due(update, now)} AND id IN (${rows.map((row) => update.bind(row.id)).join(', ')}) RETURNING id`,
        update.values,
      );
      const won = new Set(((Array.isArray(claimed[0]) ? claimed[0] : claimed) as { id: string }[]).map((row) => row.id));
      return rows
        .filter((row) => won.has(row.id as string))
        .map((row) => ({
          id: row.id as string,
          webhookId: row.webhook_id as string,
          eventId: row.event_id as string,
          eventType: row.event_type as string,
          jobId: row.job_id as string,
          payload: parseJson<Record<string, unknown>>(row.payload),
          url: row.url as string,
          secretCiphertext: row.secret_ciphertext as string,
          keyVersion: row.key_version as string,
          attempts: Number(row.attempts),
          createdAt: storedTimeOrNull(row.created_at) ?? nowDate,
        }));
    });
  }

  /**
   * Records an attempt and settles the delivery: `delivered`, `dead`, or back to pending due at
   * `nextAttemptAt`. Only the claim's holder may settle it (a dispatcher whose claim ran out and was
   * taken over records nothing).
   */
  async settle(
    delivery: ClaimedDelivery,
    dispatcherId: string,
    outcome: AttemptOutcome,
    next: { readonly state: DeliveryState; readonly nextAttemptAt?: Date },
  ): Promise<boolean> {
    return inTransaction(this.dataSource, async (manager) => {
      const update = this.statement();
      const attemptedAt = timeParam(this.dataSource, outcome.attemptedAt);
      const result: unknown = await manager.query(
        `UPDATE webhook_deliveries SET state = ${update.bind(next.state)}, attempts = attempts + 1,
           first_attempt_at = COALESCE(first_attempt_at, ${update.bind(attemptedAt)}),
           next_attempt_at = ${update.bind(timeParam(this.dataSource, next.nextAttemptAt ?? outcome.attemptedAt))},
           last_status_code = ${update.bind(outcome.statusCode)}, last_error = ${update.bind(outcome.error?.slice(0, 1000) ?? null)},
           claimed_by = NULL, claimed_until = NULL
         WHERE id = ${update.bind(delivery.id)} AND claimed_by = ${update.bind(dispatcherId)} AND state = 'pending' RETURNING id`,
        update.values,
      );
      const rows = (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as unknown[];
      if (rows.length === 0) return false;
      const insert = this.statement();
      await manager.query(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, latency_ms, error, attempted_at)
         VALUES (${[
           delivery.id,
           delivery.attempts + 1,
           outcome.statusCode,
           outcome.latencyMs,
           outcome.error?.slice(0, 1000) ?? null,
           attemptedAt,
         ]
           .map((v) => insert.bind(v))
           .join(', ')})`,
        insert.values,
      );
      return true;
    });
  }

  /** Marks the pending deliveries of a deleted webhook dead: nothing more is sent to it. */
  async abandon(manager: EntityManager, webhookId: string): Promise<void> {
    const update = this.statement();
    await manager.query(
      `UPDATE webhook_deliveries SET state = 'dead', last_error = 'webhook deleted', claimed_by = NULL, claimed_until = NULL
       WHERE webhook_id = ${update.bind(webhookId)} AND state = 'pending'`,
      update.values,
    );
  }

  /** One page of a webhook's deliveries, newest first, each with its attempts (newest first). */
  async page(webhookId: string, window: { skip: number; take: number }): Promise<{ items: DeliveryView[]; total: number }> {
    const count = this.statement();
    const [{ n }] = await this.dataSource.query(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ${count.bind(webhookId)}`,
      count.values,
    );
    const select = this.statement();
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT id, event_id, event_type, job_id, state, attempts, next_attempt_at, created_at FROM webhook_deliveries
       WHERE webhook_id = ${select.bind(webhookId)} ORDER BY created_at DESC, id DESC
       LIMIT ${select.bind(window.take)} OFFSET ${select.bind(window.skip)}`,
      select.values,
    );
    const attempts = new Map<string, DeliveryView['attemptList']>();
    if (rows.length > 0) {
      const list = this.statement();
      const found: Record<string, unknown>[] = await this.dataSource.query(
        `SELECT delivery_id, attempt, status_code, latency_ms, error, attempted_at FROM webhook_delivery_attempts
         WHERE delivery_id IN (${rows.map((row) => list.bind(row.id)).join(', ')}) ORDER BY attempt DESC`,
        list.values,
      );
      for (const row of found) {
        const id = row.delivery_id as string;
        if (!attempts.has(id)) attempts.set(id, []);
        attempts.get(id)?.push({
          attempt: Number(row.attempt),
          statusCode: row.status_code === null ? null : Number(row.status_code),
          latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
          error: (row.error as string | null) ?? null,
          attemptedAt: storedTime(row.attempted_at),
        });
      }
    }
    return {
      total: Number(n),
      items: rows.map((row) => ({
        id: row.id as string,
        eventId: row.event_id as string,
        eventType: row.event_type as string,
        jobId: row.job_id as string,
        state: row.state as DeliveryState,
        attempts: Number(row.attempts),
        nextAttemptAt: row.state === 'pending' ? storedTime(row.next_attempt_at) : null,
        createdAt: storedTime(row.created_at),
        attemptList: attempts.get(row.id as string) ?? [],
      })),
    };
  }

  /** Pending, due and not held by a live claim. */
  private due(statement: SqlParameters, now: Date | string, alias = ''): string {
    const a = alias ? `${alias}.` : '';
    return `${a}state = 'pending' AND ${a}next_attempt_at <= ${statement.bind(now)} AND (${a}claimed_until IS NULL OR ${a}claimed_until < ${statement.bind(now)})`;
  }

  private statement(): SqlParameters {
    return sqlParameters(this.dataSource);
  }
}

function parseJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
