import { Module } from '@nestjs/common';
import { JobListRepository } from './job-list.repository.js';
import { JobRepository } from './job.repository.js';
import { ResultRetentionRepository } from './retention/result-retention.repository.js';
import { EventsModule } from '../events/events.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';

/**
 * Job records, their status machine and their listing; shared by both roles (the worker's metrics
 * count jobs by status too). The queue ports come from JobQueueModule.
 */
@Module({
  imports: [EventsModule, WebhookModule],
  providers: [JobRepository, JobListRepository, ResultRetentionRepository],
  exports: [JobRepository, JobListRepository, ResultRetentionRepository],
})
export class JobModule {}
