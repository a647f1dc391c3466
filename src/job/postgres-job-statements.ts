import type { DataSource, EntityManager } from 'typeorm';
import { OUTBOX_EVENT_ENTITY, type OutboxEventRecord } from '../events/outbox.entity.js';
import type { WebhookSubscription } from '../webhook/webhook-delivery.repository.js';
import { EntityRows, type SqlExpression } from '../persistence/entity-rows.js';
import { sqlParameters } from '../persistence/sql-parameters.js';
import {
  JOB_DATASOURCE_ENTITY,
  JOB_ENTITY,
  JOB_TRANSITION_ENTITY,
  type JobDatasourceRecord,
  type JobRecord,
  type JobTransitionRecord,
} from './job.entity.js';
import { JobStatus } from './job-status.js';
import type { Transition } from './transition-guard.js';

/**
 * The job store's most frequent writes as one statement each on PostgreSQL, where the query
 * builder needs a transaction of several round trips: a submission's insert, a worker's claim, and
 * the writes of a guarded change (a commit's). One statement is atomic by itself, so none leaves
 * half its rows behind; SQLite keeps the transactions (JobRepository).
 */
export class PostgresJobStatements {
  private readonly jobs: EntityRows<JobRecord>;
  private readonly datasources: EntityRows<JobDatasourceRecord>;
  private readonly transitions: EntityRows<JobTransitionRecord>;
  private readonly outbox: EntityRows<OutboxEventRecord>;

  constructor(private readonly dataSource: DataSource) {
    this.jobs = new EntityRows(dataSource, JOB_ENTITY);
    this.datasources = new EntityRows(dataSource, JOB_DATASOURCE_ENTITY);
    this.transitions = new EntityRows(dataSource, JOB_TRANSITION_ENTITY);
    this.outbox = new EntityRows(dataSource, OUTBOX_EVENT_ENTITY);
  }

  /** The job, its datasources and its first transition; a unique index it breaks fails the whole statement. */
  async insertPending(job: JobRecord, datasources: readonly JobDatasourceRecord[], accepted: JobTransitionRecord): Promise<void> {
    const parameters = sqlParameters(this.dataSource);
    const parts = [`inserted_job AS (${this.jobs.insert(job, parameters)} RETURNING 1)`];
    if (datasources.length > 0) parts.push(`inserted_datasources AS (${this.datasources.insertMany(datasources, parameters)})`);
    parts.push(`inserted_transition AS (${this.transitions.insert(accepted, parameters)})`);
    await this.dataSource.query(`WITH ${parts.join(', ')} SELECT 1 FROM inserted_job`, parameters.values);
  }

  /**
   * pending → processing in one statement: the row is updated only while pending (a concurrent
   * claim waits for the row's lock, then finds it processing and changes nothing), its transition
   * is written only when it was, and the job comes back as it now is; null when it was not pending.
   */
  async claim(
    id: string,
    columns: { readonly [K in keyof JobRecord]?: JobRecord[K] | SqlExpression },
    claimed: JobTransitionRecord,
  ): Promise<JobRecord | null> {
    const parameters = sqlParameters(this.dataSource);
    const set = this.jobs.set({ ...columns, status: JobStatus.Processing }, parameters);
    const where = `${this.jobs.column('id')} = ${parameters.bind(id)} AND ${this.jobs.column('status')} = ${parameters.bind(JobStatus.Pending)}`;
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `WITH claimed AS (UPDATE ${this.jobs.table} SET ${set} WHERE ${where} RETURNING *),
       recorded AS (${this.transitions.insertFrom(claimed, 'claimed', parameters)})
       SELECT * FROM claimed`,
      parameters.values,
    );
    return rows.length === 0 ? null : this.jobs.hydrate(rows[0]);
  }

  /**
   * The writes of a guarded change in one statement: the row's update from `from` with the guard in
   * its WHERE (which takes the row's lock and re-checks a row a concurrent change got to first), its
   * transition and its outbox event, each written only when the update changed the row. With an
   * event, the live webhooks of the job's product come back too, for the caller to fan the event out to.
   */
  async apply(
    manager: EntityManager,
    id: string,
    from: JobStatus,
    change: Transition,
    at: Date,
    recorded: JobTransitionRecord,
    event?: OutboxEventRecord,
  ): Promise<{ changed: number; hooks: WebhookSubscription[] }> {
    const parameters = sqlParameters(this.dataSource);
    const { guard } = change;
    const set = this.jobs.set({ ...change.columns, status: change.to, updatedAt: at } as never, parameters);
    const where = [`${this.jobs.column('id')} = ${parameters.bind(id)}`, `${this.jobs.column('status')} = ${parameters.bind(from)}`];
    if (guard.workerId !== undefined) where.push(`${this.jobs.column('workerId')} = ${parameters.bind(guard.workerId)}`);
    if (guard.attempt !== undefined) where.push(`${this.jobs.column('attempts')} = ${parameters.bind(guard.attempt)}`);
    if (guard.leaseExpiredBefore) where.push(`${this.jobs.column('leaseExpiresAt')} < ${parameters.bind(guard.leaseExpiredBefore)}`);
    if (guard.leaseLiveAt) where.push(`${this.jobs.column('leaseExpiresAt')} > ${parameters.bind(guard.leaseLiveAt)}`);
    const parts = [
      `changed AS (UPDATE ${this.jobs.table} SET ${set} WHERE ${where.join(' AND ')} RETURNING ${this.jobs.column('productName')} AS product_name)`,
      `recorded AS (${this.transitions.insertFrom(recorded, 'changed', parameters)})`,
    ];
    if (event) parts.push(`announced AS (${this.outbox.insertFrom(event, 'changed', parameters)})`);
    const hooks = event
      ? `COALESCE((SELECT json_agg(json_build_object('id', w.id, 'events', w.events) ORDER BY w.id)
           FROM webhooks w JOIN changed c ON w.product_name = c.product_name WHERE w.deleted_at IS NULL), '[]'::json)`
      : `'[]'::json`;
    const rows: { changed: number; hooks: WebhookSubscription[] }[] = await manager.query(
      `WITH ${parts.join(', ')} SELECT (SELECT count(*) FROM changed)::int AS changed, ${hooks} AS hooks`,
      parameters.values,
    );
    return rows[0];
  }
}
