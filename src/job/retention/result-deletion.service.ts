import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../../auth/principal.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import { ServiceUnavailableError } from '../../common/errors/request-errors.js';
import { OBJECT_STORE, type ObjectStore } from '../../storage/object-store.port.js';
import type { JobRecord } from '../job.entity.js';
import { JobError } from '../job.error.js';
import { jobLogFields } from '../job-log-fields.js';
import { JobRepository } from '../job.repository.js';
import { JobStatus } from '../job-status.js';
import { ResultRetentionRepository } from './result-retention.repository.js';
import { findOwnedJob } from '../owned-job.js';
import { Clock } from '../../common/clock/clock.js';

/**
 * Deletes completed results, for their product (DELETE …/result) and for the retention sweep, in
 * two recorded steps: the intent first (the result is gone for consumers from then on), then the
 * object (a per-table result's every part and its manifest), then the record that it is gone. A
 * process that dies between the steps leaves the intent, and the next sweep deletes the object and
 * records it. Deleting again is harmless.
 */
@Injectable()
export class ResultDeletionService {
  private readonly logger = new Logger(ResultDeletionService.name);

  constructor(
    private readonly jobs: JobRepository,
    private readonly retention: ResultRetentionRepository,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    private readonly clock: Clock,
  ) {}

  /** The owning product deletes a result it has consumed. Idempotent. */
  async deleteForPrincipal(id: string, principal: Principal): Promise<void> {
    const job = await findOwnedJob(this.jobs, id, principal);
    if (job.status !== JobStatus.Completed) {
      throw new JobError(FetCode.JobNotCompleted, `job ${id} is ${job.status}: only a completed job has a result to delete`);
    }
    try {
      await this.delete(job);
    } catch (error) {
      if (error instanceof JobError) throw error;
      this.logger.warn(`deletion of the result of job ${id} is recorded but not finished: ${String(error)}`, jobLogFields(job));
      throw new ServiceUnavailableError(
        'the result is marked deleted, but the store could not remove it now; the retention sweep will finish it, and retrying is safe',
      );
    }
  }

  /** Both steps for one job; throws when the store failed (the intent stays recorded). */
  async delete(job: JobRecord): Promise<void> {
    if (job.resultDeletedAt) return;
    if (!(await this.retention.requestResultDeletion(job.id, this.clock.now()))) {
      throw new JobError(FetCode.JobNotCompleted, `job ${job.id} is not completed: it has no result to delete`);
    }
    // Every part, then the object that lists them: a deletion cut short is found again through the job's parts.
    for (const part of job.resultParts ?? []) await this.store.delete(part.path);
    if (job.resultPath) await this.store.delete(job.resultPath);
    await this.retention.recordResultDeleted(job.id, this.clock.now());
  }
}
