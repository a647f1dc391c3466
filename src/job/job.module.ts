import { Module } from '@nestjs/common';
import { JobRepository } from './job.repository.js';
import { ResultRetentionRepository } from './retention/result-retention.repository.js';

/** Job records and their status machine; shared by both roles. The queue ports come from JobQueueModule. */
@Module({ providers: [JobRepository, ResultRetentionRepository], exports: [JobRepository, ResultRetentionRepository] })
export class JobModule {}
