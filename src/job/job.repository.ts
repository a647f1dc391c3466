import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, MoreThanOrEqual, type EntityManager, type QueryDeepPartialEntity, type Repository } from 'typeorm';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import {
  JOB_DATASOURCE_ENTITY,
  JOB_ENTITY,
  OUTBOX_EVENT_ENTITY,
  type JobDatasourceRecord,
  type JobErrorInfo,
  type JobRecord,
  type OutboxEventRecord,
} from './job.entity.js';
import { JobStatus } from './job-status.js';

export interface CompletedResult {
  readonly resultPath: string;
  readonly resultHmac: string;
  readonly resultSha256: string;
  readonly resultSizeBytes: number;
  readonly resultRowCount: number;
  readonly resultRowCounts: Record<string, Record<string, number>>;
}

export interface TerminalEvent {
  readonly id: string;
  readonly eventType: string;
  readonly payload: Record<string, unknown>;
}

/** Job rows and their status machine. Every transition is one conditional update. */
@Injectable()
export class JobRepository {
  private readonly jobs: Repository<JobRecord>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.jobs = dataSource.getRepository<JobRecord>(JOB_ENTITY);
  }

  /** Whether a pending or processing job reads the connection named `configName`. */
  async usesConnection(configName: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM job_datasources d JOIN jobs j ON j.id = d.job_id
       WHERE d.config_name = ${this.placeholder(1)} AND j.status IN ('pending', 'processing') LIMIT 1`,
      [configName],
    );
    return rows.length > 0;
  }

  private placeholder(index: number): string {
    return this.dataSource.options.type === 'postgres' ? `$${index}` : '?';
  }

  findById(id: string): Promise<JobRecord | null> {
    return this.jobs.findOneBy({ id });
  }

  /** The newest job with this hash created since `since`, whatever its status. */
  findNewestByHash(requestHash: string, since: Date): Promise<JobRecord | null> {
    return this.jobs.findOne({
      where: { requestHash, createdAt: MoreThanOrEqual(since) },
      order: { createdAt: 'DESC' },
    });
  }

  findByDedupKey(dedupKey: string): Promise<JobRecord | null> {
    return this.jobs.findOneBy({ dedupKey });
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

  findIdsByStatus(status: JobStatus): Promise<string[]> {
    return this.jobs.find({ select: { id: true }, where: { status }, order: { createdAt: 'ASC' } }).then((rows) => rows.map((row) => row.id));
  }

  /**
   * Inserts a pending job and the datasources it reads. Returns false when another job holds the
   * same dedup key (the unique index decides, so concurrent twins cannot both win).
   */
  async insertPending(job: JobRecord): Promise<boolean> {
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.getRepository<JobRecord>(JOB_ENTITY).insert(job as QueryDeepPartialEntity<JobRecord>);
        const datasources: JobDatasourceRecord[] = Object.keys(job.mappedFields).map((configName) => ({ jobId: job.id, configName }));
        await manager.getRepository<JobDatasourceRecord>(JOB_DATASOURCE_ENTITY).insert(datasources);
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** pending → processing, only if still pending. False means another delivery got there first. */
  async claim(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const now = new Date();
    const result = await this.jobs
      .createQueryBuilder()
      .update()
      .set({
        status: JobStatus.Processing,
        startedAt: now,
        updatedAt: now,
        workerId,
        leaseExpiresAt: new Date(now.getTime() + leaseMs),
        attempts: () => 'attempts + 1',
      })
      .where('id = :id AND status = :status', { id, status: JobStatus.Pending })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** Extends the lease of a job this worker holds. False when the job is no longer ours. */
  async renewLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const result = await this.jobs
      .createQueryBuilder()
      .update()
      .set({ leaseExpiresAt: new Date(Date.now() + leaseMs) })
      .where('id = :id AND status = :status AND worker_id = :workerId', { id, status: JobStatus.Processing, workerId })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** processing → pending, for a job this worker gives back (shutdown); it will be claimed again. */
  async release(id: string, workerId: string): Promise<boolean> {
    const result = await this.jobs
      .createQueryBuilder()
      .update()
      .set({ status: JobStatus.Pending, workerId: null, leaseExpiresAt: null, startedAt: null, updatedAt: new Date() })
      .where('id = :id AND status = :status AND worker_id = :workerId', { id, status: JobStatus.Processing, workerId })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** processing → completed and its terminal event, in one transaction. */
  complete(id: string, workerId: string, result: CompletedResult, event: TerminalEvent): Promise<boolean> {
    return this.finish(id, [JobStatus.Processing], workerId, { status: JobStatus.Completed, ...result }, event);
  }

  /** pending|processing → failed and its terminal event, in one transaction. */
  fail(id: string, error: JobErrorInfo, event: TerminalEvent, workerId?: string): Promise<boolean> {
    return this.finish(id, [JobStatus.Pending, JobStatus.Processing], workerId, { status: JobStatus.Failed, error, dedupKey: null }, event);
  }

  private async finish(
    id: string,
    from: JobStatus[],
    workerId: string | undefined,
    changes: Partial<JobRecord>,
    event: TerminalEvent,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const now = new Date();
      const query = manager
        .getRepository<JobRecord>(JOB_ENTITY)
        .createQueryBuilder()
        .update()
        .set({ ...changes, completedAt: now, updatedAt: now, leaseExpiresAt: null } as QueryDeepPartialEntity<JobRecord>)
        .where('id = :id AND status IN (:...from)', { id, from });
      if (workerId !== undefined) query.andWhere('worker_id = :workerId', { workerId });
      const result = await query.execute();
      if ((result.affected ?? 0) !== 1) return false;
      const outbox: OutboxEventRecord = {
        id: event.id,
        jobId: id,
        eventType: event.eventType,
        payload: event.payload,
        createdAt: now,
        publishedAt: null,
        attempts: 0,
        nextAttemptAt: now,
        lastError: null,
      };
      await manager.getRepository<OutboxEventRecord>(OUTBOX_EVENT_ENTITY).insert(outbox as QueryDeepPartialEntity<OutboxEventRecord>);
      return true;
    });
  }
}
