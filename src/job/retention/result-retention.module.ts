import { Module } from '@nestjs/common';
import { StorageModule } from '../../storage/storage.module.js';
import { JobModule } from '../job.module.js';
import { ResultDeletionController } from './result-deletion.controller.js';
import { ResultDeletionService } from './result-deletion.service.js';
import { ResultRetentionSweep } from './result-retention.sweep.js';

/** Result deletion (the DELETE route's service) and the retention sweep; manager role. */
@Module({
  imports: [JobModule, StorageModule],
  controllers: [ResultDeletionController],
  providers: [ResultDeletionService, ResultRetentionSweep],
  exports: [ResultDeletionService, ResultRetentionSweep],
})
export class ResultRetentionModule {}
