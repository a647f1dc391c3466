import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OutboundEvent } from './event-publisher.port.js';

export interface ClaimedEvent extends OutboundEvent {
  /** Failed deliveries so far. */
  readonly attempts: number;
}

/** Unpublished terminal events: claimed by one relay at a time, published in creation order. */
@Injectable()
export class OutboxRepository {
  private readonly postgres: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.postgres = dataSource.options.type === 'postgres';
  }

  /**
   * Claims up to `limit` due events for `claimMs`. On PostgreSQL, SKIP LOCKED lets several relays
   * (processes) claim disjoint batches; an expired claim (relay died) is claimable again.
   */
  async claim(relayId: string, limit: number, claimMs: number): Promise<ClaimedEvent[]> {
    const now = new Date();
    const until = new Date(now.getTime() + claimMs);
    const p = (i: number) => (this.postgres ? `$${i}` : '?');
    const lock = this.postgres ? 'FOR UPDATE SKIP LOCKED' : '';
    const due = `SELECT id FROM outbox_events
      WHERE published_at IS NULL AND next_attempt_at <= ${p(3)} AND (claimed_until IS NULL OR claimed_until < ${p(4)})
      ORDER BY created_at, id LIMIT ${p(5)} ${lock}`;
    const rows: { id: string; event_type: string; payload: unknown; created_at: unknown; attempts: number | string }[] = await this.dataSource.query(
      `UPDATE outbox_events SET claimed_by = ${p(1)}, claimed_until = ${p(2)} WHERE id IN (${due})
       RETURNING id, event_type, payload, created_at, attempts`,
      [relayId, this.param(until), this.param(now), this.param(now), limit],
    );
    const flat = (Array.isArray(rows[0]) ? rows[0] : rows) as typeof rows;
    return flat
      .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)) || a.id.localeCompare(b.id))
      .map((row) => ({
        id: row.id,
        type: row.event_type,
        payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : (row.payload as Record<string, unknown>),
        attempts: Number(row.attempts),
      }));
  }

  async markPublished(id: string, relayId: string): Promise<void> {
    await this.update(id, relayId, 'published_at = $now, claimed_by = NULL, claimed_until = NULL', {});
  }

  async markFailed(id: string, relayId: string, error: string, nextAttemptAt: Date): Promise<void> {
    await this.update(id, relayId, 'attempts = attempts + 1, last_error = $error, next_attempt_at = $next, claimed_by = NULL, claimed_until = NULL', {
      error: error.slice(0, 1000),
      next: this.param(nextAttemptAt),
    });
  }

  /** Events not yet handed to the broker (for readiness and metrics). */
  async backlog(): Promise<number> {
    const [row] = await this.dataSource.query('SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL');
    return Number(row.n);
  }

  private async update(id: string, relayId: string, assignments: string, values: Record<string, unknown>): Promise<void> {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return this.postgres ? `$${params.length}` : '?';
    };
    const set = assignments.replace(/\$(\w+)/g, (_, name: string) => bind(name === 'now' ? this.param(new Date()) : values[name]));
    await this.dataSource.query(`UPDATE outbox_events SET ${set} WHERE id = ${bind(id)} AND claimed_by = ${bind(relayId)}`, params);
  }

  /** SQLite stores timestamps as TypeORM's UTC datetime text; PostgreSQL takes Date objects. */
  private param(date: Date): Date | string {
    return this.postgres ? date : date.toISOString().replace('T', ' ').replace('Z', '');
  }
}
