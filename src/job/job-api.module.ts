import { Module } from '@nestjs/common';
import { DatasourceModule } from '../datasource/datasource.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { StreamModule } from '../stream/stream.module.js';
import { IncrementalSubmission } from './incremental-submission.service.js';
import { JobController } from './job.controller.js';
import { JobListService } from './job-list.service.js';
import { JobModule } from './job.module.js';
import { JobService } from './job.service.js';
import { JobResultController } from './result/job-result.controller.js';
import { JobResultService } from './result/job-result.service.js';
import { JobQueueModule } from './queue/job-queue.module.js';

/** The job HTTP API and producer side (manager role only). */
@Module({
  imports: [JobModule, JobQueueModule, DatasourceModule, StorageModule, StreamModule],
  controllers: [JobController, JobResultController],
  providers: [JobService, JobResultService, JobListService, IncrementalSubmission],
})
export class JobApiModule {}
