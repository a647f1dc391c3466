import { Global, Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module.js';
import { MetricsService } from './metrics.service.js';
import { ReadinessService } from './readiness.service.js';
import { SystemController } from './system.controller.js';

/** /health, /readyz, /version, /metrics — served by every role. */
@Global()
@Module({
  imports: [StorageModule],
  controllers: [SystemController],
  providers: [ReadinessService, MetricsService],
  exports: [MetricsService, ReadinessService],
})
export class SystemModule {}
