import { Global, Module } from '@nestjs/common';
import { JobListRepository } from '../job/job-list.repository.js';
import { StorageModule } from '../storage/storage.module.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { METRICS_STORE_REFRESH_MS, MetricsCollectors } from './metrics-collectors.js';
import { MetricsService } from './metrics.service.js';
import { ReadinessService } from './readiness.service.js';
import { SystemController } from './system.controller.js';

/**
 * /health, /readyz, /version, /metrics — served by every role — and the HTTP metrics of every
 * request (mounted by configureFetcherApp ahead of the body parser). JobListRepository is
 * provided here too (it holds no state): the worker role, which has no job API, reports jobs by
 * status as well.
 */
@Global()
@Module({
  imports: [StorageModule],
  controllers: [SystemController],
  providers: [
    ReadinessService,
    MetricsService,
    MetricsCollectors,
    JobListRepository,
    { provide: METRICS_STORE_REFRESH_MS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.metrics.storeRefreshMs },
  ],
  exports: [MetricsService, ReadinessService],
})
export class SystemModule {}
