import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, LessThan, type EntityManager, type QueryDeepPartialEntity, type Repository } from 'typeorm';
import { Clock, systemClock } from '../common/clock/clock.js';
import { IdGenerator, RandomIdGenerator } from '../common/clock/id-generator.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { WebhookDeliveryRepository } from '../webhook/webhook-delivery.repository.js';
import { sqlParameters } from '../persistence/sql-parameters.js';
import { inTransaction } from '../persistence/transactions.js';
import { isUniqueViolation, violatesIndex, type UniqueIndex } from '../persistence/unique-violation.js';
import { streamBusy } from '../stream/stream.error.js';
import {
  JOB_DATASOURCE_ENTITY,
  JOB_ENTITY,
  JOB_TRANSITION_ENTITY,
  type JobDatasourceRecord,
  type JobErrorInfo,
  type JobProgress,
  type JobRecord,
  type JobTransitionRecord,
} from './job.entity.js';
import type { CompletedResult, CompletionStep, JobClaim, TerminalEvent } from './job-commit.js';
import { JobStatus } from './job-status.js';
import { JobReads } from './job-reads.js';
import { PostgresJobChanges } from './postgres-job-changes.js';
import { PostgresJobStatements } from './postgres-job-statements.js';
import { failedColumns, guardHolds, releasedColumns, transitionRow, type Transition, type TransitionGuard } from './transition-guard.js';

export type { CompletedResult, CompletionStep, JobClaim, TerminalEvent } from './job-commit.js';

/** At most one pending or processing job per (product, stream): the migration's partial unique index. */
const ACTIVE_STREAM_INDEX: UniqueIndex = { name: 'uniq_jobs_active_stream', table: 'jobs', columns: ['product_name', 'stream_name'] };

/**
 * Job rows and their status machine. Every transition is one conditional update, recorded in
 * job_transitions in the same transaction; terminal ones also write their outbox event there.
 */
@Injectable()
export class JobRepository {
  private readonly jobs: Repository<JobRecord>;
  private statements: PostgresJobStatements | undefined;
  private reads: JobReads | undefined;
  private changes: PostgresJobChanges | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRepository,
    // Optional so that a repository built by hand around a store (integration specs) needs none.
    @Optional() private readonly webhooks?: WebhookDeliveryRepository,
    @Optional() private readonly clock: Clock = systemClock,
    @Optional() private readonly ids: IdGenerator = new RandomIdGenerator(),
  ) {
    this.jobs = dataSource.getRepository<JobRecord>(JOB_ENTITY);
  }

  private get plainReads(): JobReads {
    return (this.reads ??= new JobReads(this.dataSource));
  }

  private get postgresChanges(): PostgresJobChanges {
    return (this.changes ??= new PostgresJobChanges(
      this.dataSource,
      this.postgres as PostgresJobStatements,
      this.clock,
      this.ids,
      this.webhooks,
    ));
  }

  /** One statement where PostgreSQL can do in one what takes SQLite a transaction. */
  private get postgres(): PostgresJobStatements | undefined {
    if (this.dataSource.options.type !== 'postgres') return undefined;
    return (this.statements ??= new PostgresJobStatements(this.dataSource));
  }

  findById(id: string): Promise<JobRecord | null> {
    return this.jobs.findOneBy({ id });
  }

  /** The newest job with this hash created since `since`, whatever its status. */
  findNewestByHash(requestHash: string, since: Date): Promise<JobRecord | null> {
    return this.plainReads.newestByHash(requestHash, since);
  }

  findByDedupKey(dedupKey: string): Promise<JobRecord | null> {
    return this.jobs.findOneBy({ dedupKey });
  }

  findIdsByStatus(status: JobStatus): Promise<string[]> {
    return this.jobs
      .find({ select: { id: true }, where: { status }, order: { createdAt: 'ASC' } })
      .then((rows) => rows.map((row) => row.id));
  }

  /** Processing jobs whose worker stopped renewing its lease before `now`. */
  findExpiredLeases(now: Date, limit: number): Promise<JobRecord[]> {
    return this.jobs.find({
      where: { status: JobStatus.Processing, leaseExpiresAt: LessThan(now) },
      order: { leaseExpiresAt: 'ASC' },
      take: limit,
    });
  }

  /** Pending jobs untouched since `before`: possibly missing from the queue (lost delivery, handed back). */
  findStalePending(before: Date, limit: number): Promise<JobRecord[]> {
    return this.jobs.find({ where: { status: JobStatus.Pending, updatedAt: LessThan(before) }, order: { updatedAt: 'ASC' }, take: limit });
  }

  transitionsOf(jobId: string): Promise<JobTransitionRecord[]> {
    return this.dataSource
      .getRepository<JobTransitionRecord>(JOB_TRANSITION_ENTITY)
      .find({ where: { jobId }, order: { at: 'ASC', id: 'ASC' } });
  }

  /**
   * Whether a pending or processing job reads this connection: by the id it recorded, or, for a job
   * submitted before jobs recorded ids, by its name within the job's product.
   */
  async usesConnection(connection: {
    readonly id: string;
    readonly configName: string;
    readonly productName: string | null;
  }): Promise<boolean> {
    const parameters = sqlParameters(this.dataSource);
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM job_datasources d JOIN jobs j ON j.id = d.job_id
       WHERE j.status IN ('pending', 'processing')
         AND (d.connection_id = ${parameters.bind(connection.id)}
              OR (d.connection_id IS NULL AND d.config_name = ${parameters.bind(connection.configName)}
                  AND j.product_name = ${parameters.bind(connection.productName ?? '')}))
       LIMIT 1`,
      parameters.values,
    );
    return rows.length > 0;
  }

  /** The datasources a job reads, with the connection each resolved to at submission. */
  datasourcesOf(jobId: string): Promise<JobDatasourceRecord[]> {
    return this.plainReads.datasourcesOf(jobId);
  }

  /**
   * Inserts a pending job and the datasources it reads, each with the id of the connection its name
   * resolved to (`connectionIds`, by config name). Returns false when another job holds the same
   * dedup key (the unique index decides, so concurrent twins cannot both win). Throws 409 FET-1111
   * when another job of its stream is pending or processing (another unique index decides); false
   * also when that job is its twin, or ended before it could be named, so that the caller tries again.
   */
  async insertPending(job: JobRecord, connectionIds: Readonly<Record<string, string>> = {}): Promise<boolean> {
    const datasources: JobDatasourceRecord[] = Object.keys(job.mappedFields).map((configName) => ({
      jobId: job.id,
      configName,
      connectionId: connectionIds[configName] ?? null,
    }));
    const accepted = transitionRow(this.ids.orderedUuid(), job.id, null, JobStatus.Pending, null, 'accepted', job.createdAt);
    try {
      if (this.postgres) await this.postgres.insertPending(job, datasources, accepted);
      else
        await inTransaction(this.dataSource, async (manager) => {
          await manager.getRepository<JobRecord>(JOB_ENTITY).insert(job as QueryDeepPartialEntity<JobRecord>);
          await manager.getRepository<JobDatasourceRecord>(JOB_DATASOURCE_ENTITY).insert(datasources);
          await manager.getRepository<JobTransitionRecord>(JOB_TRANSITION_ENTITY).insert(accepted);
        });
      return true;
    } catch (error) {
      if (job.streamName && violatesIndex(error, ACTIVE_STREAM_INDEX)) {
        const active = await this.activeJobOfStream(job.productName, job.streamName);
        // Its own twin holds the stream (SQLite may report either index first): a duplicate, not a busy stream.
        if (active && active.dedupKey !== job.dedupKey) throw streamBusy(job.streamName, active);
        return false;
      }
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  private activeJobOfStream(productName: string | null, streamName: string): Promise<JobRecord | null> {
    return this.jobs.findOne({
      select: { id: true, status: true, dedupKey: true },
      where: { productName: productName ?? '', streamName, status: In([JobStatus.Pending, JobStatus.Processing]) },
    });
  }

  /**
   * Lets a completed job created before `before` stop answering duplicates, so a new job can take
   * its key. Conditional: only one of several concurrent callers changes anything.
   */
  async releaseDedupKey(id: string, dedupKey: string, before: Date): Promise<void> {
    await this.jobs
      .createQueryBuilder()
      .update()
      .set({ dedupKey: null })
      .where('id = :id AND dedup_key = :dedupKey AND status = :status AND created_at < :before', {
        id,
        dedupKey,
        status: JobStatus.Completed,
        before,
      })
      .execute();
  }

  /**
   * pending → processing, only if still pending: the job as it now is, read under the same lock,
   * so the worker needs no second read. null means another delivery got there first.
   */
  async claim(id: string, workerId: string, leaseMs: number): Promise<JobRecord | null> {
    const now = this.clock.now();
    const leaseExpiresAt = new Date(now.getTime() + leaseMs);
    const columns = { startedAt: now, workerId, leaseExpiresAt, updatedAt: now };
    if (this.postgres) {
      const claimed = transitionRow(this.ids.orderedUuid(), id, JobStatus.Pending, JobStatus.Processing, workerId, 'claimed', now);
      return this.postgres.claim(id, { ...columns, attempts: () => '"attempts" + 1' }, claimed);
    }
    const before = await this.change(id, {
      guard: { from: [JobStatus.Pending] },
      to: JobStatus.Processing,
      workerId,
      reason: 'claimed',
      columns: { ...columns, attempts: () => 'attempts + 1' },
      wholeRow: true,
    });
    if (!before?.row) return null;
    return { ...before.row, ...columns, status: JobStatus.Processing, attempts: before.row.attempts + 1, updatedAt: before.at };
  }

  /**
   * Extends the lease of a job this worker holds, and records its progress in the same update.
   * False when the job is no longer ours: another claim took it, or it was cancelled.
   */
  async renewLease(id: string, workerId: string, leaseMs: number, progress?: JobProgress): Promise<boolean> {
    const columns: QueryDeepPartialEntity<JobRecord> = { leaseExpiresAt: new Date(this.clock.nowMs() + leaseMs) };
    if (progress) columns.progress = progress as QueryDeepPartialEntity<JobProgress>;
    const result = await this.jobs
      .createQueryBuilder()
      .update()
      .set(columns)
      .where('id = :id AND status = :status AND worker_id = :workerId', { id, status: JobStatus.Processing, workerId })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * processing → pending for a job its worker gives back (shutdown); it will be claimed again. A
   * hand-back is not a failed attempt, so it does not count against JOB_MAX_ATTEMPTS.
   */
  async release(id: string, workerId: string, reason: string): Promise<boolean> {
    const changed = await this.change(id, {
      guard: { from: [JobStatus.Processing], workerId },
      to: JobStatus.Pending,
      workerId,
      reason,
      columns: { ...releasedColumns(), attempts: () => 'attempts - 1' },
    });
    return changed !== null;
  }

  /** processing → pending for a job whose worker stopped renewing its lease. */
  async requeueExpired(job: JobRecord, now: Date): Promise<boolean> {
    const changed = await this.change(job.id, {
      guard: { from: [JobStatus.Processing], workerId: job.workerId ?? undefined, leaseExpiredBefore: now },
      to: JobStatus.Pending,
      workerId: job.workerId,
      reason: `lease expired (attempt ${job.attempts})`,
      columns: releasedColumns(),
    });
    return changed !== null;
  }

  /** Marks a pending job as just re-queued, so the next sweep leaves it alone for a while. */
  async touchPending(id: string): Promise<void> {
    await this.jobs
      .createQueryBuilder()
      .update()
      .set({ updatedAt: this.clock.now() })
      .where('id = :id AND status = :status', { id, status: JobStatus.Pending })
      .execute();
  }

  /**
   * processing → completed and its terminal event, in one transaction, only for the claim that still
   * holds the job. `publish` runs inside that transaction once the claim is confirmed on the locked
   * row (on PostgreSQL by the row's guarded update, on SQLite before it): it makes the attempt's
   * object the job's result, so no other claim can commit or publish in between, and no reader sees
   * the job completed without its object; if it throws, nothing is committed. `step` runs in the
   * same place, before `publish`.
   */
  async complete(
    id: string,
    claim: JobClaim,
    result: CompletedResult,
    event: TerminalEvent,
    publish?: () => Promise<void>,
    progress?: JobProgress,
    step?: CompletionStep,
  ): Promise<boolean> {
    const finalProgress = progress ? { progress: progress as QueryDeepPartialEntity<JobProgress> } : {};
    // The worker's completion time, which its job.completed event carries too: row and event agree.
    const { completedAt = this.clock.now(), ...columns } = result;
    const changed = await this.change(id, {
      // The lease check is the commit's own: no renewal round trip is needed just before it.
      guard: { from: [JobStatus.Processing], workerId: claim.workerId, attempt: claim.attempt, leaseLiveAt: this.clock.now() },
      to: JobStatus.Completed,
      workerId: claim.workerId,
      reason: 'completed',
      columns: { ...columns, ...finalProgress, leaseExpiresAt: null, completedAt },
      at: completedAt,
      event,
      beforeCommit:
        step || publish
          ? async (manager) => {
              await step?.(manager);
              await publish?.();
            }
          : undefined,
    });
    return changed !== null;
  }

  /**
   * pending|processing → failed and its terminal event, in one transaction; frees the dedup key.
   * The time it stamped (completed_at and updated_at), or null when the guard refused.
   */
  async fail(id: string, error: JobErrorInfo, event: TerminalEvent, guard: Partial<TransitionGuard> = {}): Promise<Date | null> {
    const at = this.clock.now();
    const changed = await this.change(id, {
      guard: { ...guard, from: guard.from ?? [JobStatus.Pending, JobStatus.Processing] },
      to: JobStatus.Failed,
      workerId: guard.workerId ?? null,
      reason: error.code,
      columns: failedColumns(error, at),
      at,
      event,
    });
    return changed === null ? null : at;
  }

  /**
   * One guarded transition in one transaction: the row is locked and the guard checked on it, then
   * the row updated, the transition recorded and the terminal event written. The row as it was read
   * (every column with `wholeRow`, else the guard's; none where PostgreSQL's UPDATE checked the guard
   * itself) and the transaction's time, or null when the guard refused.
   */
  private async change(id: string, transition: Transition): Promise<{ row?: JobRecord; at: Date } | null> {
    if (this.postgres && transition.guard.from.length === 1 && !transition.wholeRow) return this.postgresChanges.inUpdate(id, transition);
    const { guard, to, workerId, reason, columns, event, beforeCommit } = transition;
    let fannedOut = 0;
    const changed = await inTransaction(this.dataSource, async (manager) => {
      const now = transition.at ?? this.clock.now();
      const lookup = manager.getRepository<JobRecord>(JOB_ENTITY).createQueryBuilder('job').where('job.id = :id', { id });
      if (!transition.wholeRow) lookup.select(['job.id', 'job.status', 'job.workerId', 'job.attempts', 'job.leaseExpiresAt']);
      // Locked until the commit: the guard checked here still holds when the row is updated.
      if (this.postgres) lookup.setLock('pessimistic_write');
      const current = await lookup.getOne();
      if (!current || !guardHolds(guard, current)) return null;
      // Before the row says so: SQLite's one connection shows this transaction's writes to every
      // reader before the commit, so a job read as completed must already have its result object.
      await beforeCommit?.(manager);
      if (this.postgres) {
        const applied = await this.postgresChanges.apply(manager, id, current.status, transition, now);
        if (applied === null) throw new Error(`job ${id} changed while its transition held it`);
        fannedOut = applied;
        return { row: current, at: now };
      }
      const query = manager
        .getRepository<JobRecord>(JOB_ENTITY)
        .createQueryBuilder()
        .update()
        .set({ ...columns, status: to, updatedAt: now } as QueryDeepPartialEntity<JobRecord>)
        .where('id = :id AND status = :from', { id, from: current.status });
      if (guard.workerId !== undefined) query.andWhere('worker_id = :workerId', { workerId: guard.workerId });
      if (guard.attempt !== undefined) query.andWhere('attempts = :attempt', { attempt: guard.attempt });
      if (guard.leaseExpiredBefore) query.andWhere('lease_expires_at < :expiredBefore', { expiredBefore: guard.leaseExpiredBefore });
      if (guard.leaseLiveAt) query.andWhere('lease_expires_at > :liveAt', { liveAt: guard.leaseLiveAt });
      // Unreachable while transactions are queued (SQLite).
      if (((await query.execute()).affected ?? 0) !== 1) throw new Error(`job ${id} changed while its transition held it`);
      await this.record(manager, transitionRow(this.ids.orderedUuid(), id, current.status, to, workerId, reason, now));
      if (event) {
        await this.outbox.append(manager, id, event, now);
        // Same transaction: the terminal status commits with its webhook deliveries, or neither does.
        fannedOut = (await this.webhooks?.fanOut(manager, id, event, now)) ?? 0;
      }
      return { row: current, at: now };
    });
    if (changed && fannedOut > 0) this.webhooks?.announceDeliveries();
    return changed;
  }

  private async record(manager: EntityManager, row: JobTransitionRecord): Promise<void> {
    await manager.getRepository<JobTransitionRecord>(JOB_TRANSITION_ENTITY).insert(row);
  }
}
