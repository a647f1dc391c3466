import { Module } from '@nestjs/common';
import { DatasourceModule } from '../datasource/datasource.module.js';
import { JobModule } from '../job/job.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { StreamModule } from '../stream/stream.module.js';
import { ExtractionProcessor } from './extraction.processor.js';
import { ExtractionService } from './extraction.service.js';
import { JobRecovery } from './job-recovery.service.js';
import { MemoryGuard, processRss, RSS_SAMPLER } from './memory-guard.js';
import { JobQueueModule } from '../job/queue/job-queue.module.js';

/** Planning, execution and the queue processor (worker role only). */
@Module({
  imports: [DatasourceModule, JobModule, JobQueueModule, StorageModule, StreamModule],
  providers: [ExtractionService, JobRecovery, ExtractionProcessor, MemoryGuard, { provide: RSS_SAMPLER, useValue: processRss }],
  exports: [ExtractionService],
})
export class ExtractionModule {}
