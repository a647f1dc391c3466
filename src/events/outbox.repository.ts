import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { Clock, systemClock } from '../common/clock/clock.js';
import { sqlParameters, type SqlParameters } from '../persistence/sql-parameters.js';
import { inTransaction } from '../persistence/transactions.js';
import type { OutboundEvent } from './event-publisher.port.js';
import { OUTBOX_EVENT_ENTITY, type OutboxEventRecord } from './outbox.entity.js';

/** An event to record, in the transaction of the change it reports. */
export interface NewOutboxEvent {
  /** Stable across re-sends: consumers dedupe on it. */
  readonly id: string;
  readonly eventType: string;
  readonly payload: Record<string, unknown>;
}

export interface ClaimedEvent extends OutboundEvent {
  /** Failed deliveries so far. */
  readonly attempts: number;
}

/**
 * The outbox: events appended in the transaction of the change they report (append), then claimed
 * by one relay at a time and published in creation order.
 */
@Injectable()
export class OutboxRepository {
  private readonly postgres: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    // Optional so that a repository built by hand around a store (integration specs) runs on the system's clock.
    @Optional() private readonly clock: Clock = systemClock,
  ) {
    this.postgres = dataSource.options.type === 'postgres';
  }

  /** Records `event` for `jobId` in the caller's transaction: it exists exactly when the change commits. */
  async append(manager: EntityManager, jobId: string, event: NewOutboxEvent, at: Date): Promise<void> {
    const row = OutboxRepository.rowOf(jobId, event, at);
    await manager.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).insert(row as QueryDeepPartialEntity<OutboxEventRecord>);
  }

  /** The outbox row of `event`, due at once: what append inserts (and a one-statement transition writes). */
  static rowOf(jobId: string, event: NewOutboxEvent, at: Date): OutboxEventRecord {
    return {
      id: event.id,
      jobId,
      eventType: event.eventType,
      payload: event.payload,
      createdAt: at,
      publishedAt: null,
      attempts: 0,
      nextAttemptAt: at,
      lastError: null,
      claimedBy: null,
      claimedUntil: null,
    };
  }

  /**
   * Claims up to `limit` due events for `claimMs`, oldest first (creation time, then id). On
   * PostgreSQL, SKIP LOCKED lets several relays (processes) claim disjoint batches; an expired
   * claim (relay died) is claimable again.
   *
   * The order comes from the SELECT: UPDATE … RETURNING gives rows in no defined order, and pg
   * hands timestamps over as Date objects, whose string forms sort by weekday and drop the
   * milliseconds.
   */
  async claim(relayId: string, limit: number, claimMs: number): Promise<ClaimedEvent[]> {
    const nowMs = this.clock.nowMs();
    const now = this.param(new Date(nowMs));
    const until = this.param(new Date(nowMs + claimMs));
    return inTransaction(this.dataSource, async (manager) => {
      const select = this.statement();
      const rows: { id: string; event_type: string; payload: unknown; attempts: number | string }[] = await manager.query(
        `SELECT id, event_type, payload, attempts FROM outbox_events WHERE ${this.due(select, now)}
         ORDER BY created_at, id LIMIT ${select.bind(limit)} ${this.postgres ? 'FOR UPDATE SKIP LOCKED' : ''}`,
        select.values,
      );
      if (rows.length === 0) return [];
      // The due condition again: it is what keeps a claim exclusive where there are no row locks (SQLite).
      const update = this.statement();
      const claimed: unknown[] = await manager.query(
        `UPDATE outbox_events SET claimed_by = ${update.bind(relayId)}, claimed_until = ${update.bind(until)}
         WHERE ${this.due(update, now)} AND id IN (${rows.map((row) => update.bind(row.id)).join(', ')}) RETURNING id`,
        update.values,
      );
      const won = new Set(((Array.isArray(claimed[0]) ? claimed[0] : claimed) as { id: string }[]).map((row) => row.id));
      return rows
        .filter((row) => won.has(row.id))
        .map((row) => ({
          id: row.id,
          type: row.event_type,
          payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : (row.payload as Record<string, unknown>),
          attempts: Number(row.attempts),
        }));
    });
  }

  async markPublished(id: string, relayId: string): Promise<void> {
    await this.update(id, relayId, 'published_at = $now, claimed_by = NULL, claimed_until = NULL', {});
  }

  async markFailed(id: string, relayId: string, error: string, nextAttemptAt: Date): Promise<void> {
    await this.update(
      id,
      relayId,
      'attempts = attempts + 1, last_error = $error, next_attempt_at = $next, claimed_by = NULL, claimed_until = NULL',
      {
        error: error.slice(0, 1000),
        next: this.param(nextAttemptAt),
      },
    );
  }

  /** Events not yet handed to the broker (for readiness and metrics). */
  async backlog(): Promise<number> {
    const [row] = await this.dataSource.query('SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL');
    return Number(row.n);
  }

  private async update(id: string, relayId: string, assignments: string, values: Record<string, unknown>): Promise<void> {
    const statement = this.statement();
    const set = assignments.replace(/\$(\w+)/g, (_, name: string) =>
      statement.bind(name === 'now' ? this.param(this.clock.now()) : values[name]),
    );
    await this.dataSource.query(
      `UPDATE outbox_events SET ${set} WHERE id = ${statement.bind(id)} AND claimed_by = ${statement.bind(relayId)}`,
      statement.values,
    );
  }

  /** Unpublished, due and not claimed by a live relay. */
  private due(statement: SqlParameters, now: Date | string): string {
    return `published_at IS NULL AND next_attempt_at <= ${statement.bind(now)} AND (claimed_until IS NULL OR claimed_until < ${statement.bind(now)})`;
  }

  private statement(): SqlParameters {
    return sqlParameters(this.dataSource);
  }

  /** SQLite stores timestamps as TypeORM's UTC datetime text; PostgreSQL takes Date objects. */
  private param(date: Date): Date | string {
    return this.postgres ? date : date.toISOString().replace('T', ' ').replace('Z', '');
  }
}
