import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, LessThan, Not, type FindOptionsWhere, type Repository } from 'typeorm';
import { JOB_ENTITY, type JobRecord } from '../job.entity.js';
import { JobStatus } from '../job-status.js';

/** The two steps of a deletion, each a timestamp column of the job. */
const STEP_COLUMNS = { resultDeleteRequestedAt: 'result_delete_requested_at', resultDeletedAt: 'result_deleted_at' } as const;
type DeletionStep = keyof typeof STEP_COLUMNS;

/**
 * The two steps of deleting a completed job's result, each one conditional update: the intent
 * (from then on the result is gone for consumers), then the record that the object is gone.
 */
@Injectable()
export class ResultRetentionRepository {
  private readonly jobs: Repository<JobRecord>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.jobs = dataSource.getRepository<JobRecord>(JOB_ENTITY);
  }

  /**
   * First step of deleting a completed job's result: from now on it is gone for consumers, and the
   * retention sweep finishes the deletion if this process dies before it does. It stops answering
   * duplicates too: a new identical request must extract again. False when the job is not
   * completed; true when the deletion was asked for already.
   */
  async requestResultDeletion(id: string, at: Date): Promise<boolean> {
    await this.stampOnce(id, 'resultDeleteRequestedAt', at);
    const job = await this.jobs.findOne({ select: { id: true, status: true, resultDeleteRequestedAt: true }, where: { id } });
    return job?.status === JobStatus.Completed && job.resultDeleteRequestedAt !== null;
  }

  /** Second step: the object is gone from the store. Idempotent. */
  async recordResultDeleted(id: string, at: Date): Promise<void> {
    await this.stampOnce(id, 'resultDeletedAt', at);
  }

  /**
   * Completed jobs whose object still has to be deleted: a deletion asked for and not finished (a
   * crash between the two steps), or, with `completedBefore`, a result past its retention.
   */
  findResultsToDelete(completedBefore: Date | null, limit: number): Promise<JobRecord[]> {
    const pending: FindOptionsWhere<JobRecord> = { status: JobStatus.Completed, resultDeletedAt: IsNull() };
    const where: FindOptionsWhere<JobRecord>[] = [{ ...pending, resultDeleteRequestedAt: Not(IsNull()) }];
    if (completedBefore) where.push({ ...pending, completedAt: LessThan(completedBefore) });
    return this.jobs.find({ where, order: { completedAt: 'ASC' }, take: limit });
  }

  /** Sets the step's column of a completed job, unless it is set already; the dedup key goes with it. */
  private async stampOnce(id: string, step: DeletionStep, at: Date): Promise<void> {
    await this.jobs
      .createQueryBuilder()
      .update()
      .set({ [step]: at, dedupKey: null })
      .where(`id = :id AND status = :status AND ${STEP_COLUMNS[step]} IS NULL`, { id, status: JobStatus.Completed })
      .execute();
  }
}
