import { Module } from '@nestjs/common';
import { JobRepository } from './job.repository.js';

/** Job records and their status machine; shared by both roles. The queue ports come from JobQueueModule. */
@Module({ providers: [JobRepository], exports: [JobRepository] })
export class JobModule {}
