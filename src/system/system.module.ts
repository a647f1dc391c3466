import { Module, type DynamicModule } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { JobModule } from '../job/job.module.js';
import { JobQueueModule } from '../job/queue/job-queue.module.js';
import { StorageModule } from '../storage/storage.module.js';
import type { AppConfig } from '../config/app-config.js';
import { METRICS_STORE_REFRESH_MS, MetricsCollectors } from './metrics-collectors.js';
import { metricsControllerFor } from './metrics.controller.js';
import { MetricsListener } from './metrics-listener.js';
import { ReadinessService } from './readiness.service.js';
import { SystemController } from './system.controller.js';

/**
 * /health, /readyz, /version, /metrics — served by every role — and the HTTP metrics of every
 * request (mounted by configureFetcherApp ahead of the body parser). /metrics is a route of the
 * API port (public or operators only, METRICS_ACCESS) unless METRICS_PORT gives it a listener of
 * its own. The jobs by status come from JobModule's listing, which both roles import.
 */
@Module({})
export class SystemModule {
  static forRoot(config: AppConfig): DynamicModule {
    const ownPort = config.metrics.port !== undefined;
    return {
      module: SystemModule,
      // The registry comes from MetricsModule (global); readiness and the store gauges read the
      // queue, the outbox, the jobs and the object store.
      imports: [StorageModule, JobModule, JobQueueModule, EventsModule],
      controllers: [SystemController, ...(ownPort ? [] : [metricsControllerFor(config.metrics.access)])],
      providers: [
        ReadinessService,
        MetricsCollectors,
        { provide: METRICS_STORE_REFRESH_MS, useValue: config.metrics.storeRefreshMs },
        ...(ownPort ? [MetricsListener] : []),
      ],
      exports: [ReadinessService],
    };
  }
}
