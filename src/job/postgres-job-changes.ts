import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../common/clock/clock.js';
import type { IdGenerator } from '../common/clock/id-generator.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import type { WebhookDeliveryRepository } from '../webhook/webhook-delivery.repository.js';
import { inTransaction } from '../persistence/transactions.js';
import type { JobStatus } from './job-status.js';
import type { PostgresJobStatements } from './postgres-job-statements.js';
import { transitionRow, type Transition } from './transition-guard.js';

/**
 * JobRepository's guarded changes on PostgreSQL, where the guarded UPDATE takes the row's lock and
 * checks the guard on the row as it is (a concurrent change is waited for, then re-checked): a
 * change from one state needs no read under a lock first.
 */
export class PostgresJobChanges {
  constructor(
    private readonly dataSource: DataSource,
    private readonly statements: PostgresJobStatements,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly webhooks?: WebhookDeliveryRepository,
  ) {}

  /**
   * The change from its one state. When nothing else has to happen in its transaction (no
   * `beforeCommit`, no event) that is one statement; otherwise `beforeCommit` runs after it, inside
   * the transaction, so nobody sees the row changed before what it does is done, nor either if it
   * throws. The transaction's time, or null when the guard refused.
   */
  async inUpdate(id: string, transition: Transition): Promise<{ at: Date } | null> {
    const now = transition.at ?? this.clock.now();
    const from = transition.guard.from[0];
    if (!transition.beforeCommit && !transition.event) {
      return (await this.apply(this.dataSource.manager, id, from, transition, now)) === null ? null : { at: now };
    }
    let fannedOut = 0;
    const changed = await inTransaction(this.dataSource, async (manager) => {
      const applied = await this.apply(manager, id, from, transition, now);
      if (applied === null) return null;
      await transition.beforeCommit?.(manager);
      fannedOut = applied;
      return { at: now };
    });
    if (changed && fannedOut > 0) this.webhooks?.announceDeliveries();
    return changed;
  }

  /**
   * The row's update (from `from`, under the guard), its transition and its event in one statement,
   * then the event's webhook deliveries in the same transaction: how many were written, or null
   * when the guard refused and nothing was. The caller announces the deliveries once it committed.
   */
  async apply(manager: EntityManager, id: string, from: JobStatus, transition: Transition, now: Date): Promise<number | null> {
    const { to, workerId, reason, event } = transition;
    const recorded = transitionRow(this.ids.orderedUuid(), id, from, to, workerId, reason, now);
    const outboxRow = event ? OutboxRepository.rowOf(id, event, now) : undefined;
    const applied = await this.statements.apply(manager, id, from, transition, now, recorded, outboxRow);
    if (applied.changed !== 1) return null;
    // Same transaction: the terminal status commits with its webhook deliveries, or neither does.
    if (event && applied.hooks.length > 0) return (await this.webhooks?.fanOutTo(manager, applied.hooks, id, event, now)) ?? 0;
    return 0;
  }
}
