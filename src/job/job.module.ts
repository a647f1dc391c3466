import { Module } from '@nestjs/common';
import { JobListRepository } from './job-list.repository.js';
import { JobRepository } from './job.repository.js';
import { ResultRetentionRepository } from './retention/result-retention.repository.js';

/**
 * Job records, their status machine and their listing; shared by both roles (the worker's metrics
 * count jobs by status too). The queue ports come from JobQueueModule.
 */
@Module({
  providers: [JobRepository, JobListRepository, ResultRetentionRepository],
  exports: [JobRepository, JobListRepository, ResultRetentionRepository],
})
export class JobModule {}
