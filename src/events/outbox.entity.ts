import { EntitySchema } from 'typeorm';
import { columnTypes, type DatabaseKind } from '../persistence/database-kind.js';

/** A terminal event waiting in the outbox until the relay has handed it to the broker. */
export interface OutboxEventRecord {
  id: string;
  jobId: string;
  eventType: string;
  payload: Record<string, unknown>;
  createdAt: Date;
  publishedAt: Date | null;
  attempts: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  claimedBy: string | null;
  claimedUntil: Date | null;
}

export const OUTBOX_EVENT_ENTITY = 'OutboxEvent';

export function outboxEntity(kind: DatabaseKind): EntitySchema<OutboxEventRecord> {
  const types = columnTypes(kind);
  const nullableTimestamp = (name: string) => ({ type: types.timestamp, name, nullable: true });
  return new EntitySchema<OutboxEventRecord>({
    name: OUTBOX_EVENT_ENTITY,
    tableName: 'outbox_events',
    columns: {
      id: { type: 'varchar', length: 100, primary: true },
      jobId: { type: 'varchar', length: 36, name: 'job_id' },
      eventType: { type: 'varchar', length: 32, name: 'event_type' },
      payload: { type: types.json },
      createdAt: { type: types.timestamp, name: 'created_at' },
      publishedAt: nullableTimestamp('published_at'),
      attempts: { type: 'integer', default: 0 },
      nextAttemptAt: nullableTimestamp('next_attempt_at'),
      lastError: { type: 'text', name: 'last_error', nullable: true },
      claimedBy: { type: 'varchar', length: 128, name: 'claimed_by', nullable: true },
      claimedUntil: nullableTimestamp('claimed_until'),
    },
  });
}
