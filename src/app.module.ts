import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/config.module.js';
import { runsManager, runsWorker } from './config/fetcher-role.js';
import { ConnectionApiModule } from './connection/connection-api.module.js';
import { ExtractionModule } from './extraction/extraction.module.js';
import { JobApiModule } from './job/job-api.module.js';
import { JobQueueModule } from './job/queue/job-queue.module.js';
import { ResultRetentionModule } from './job/retention/result-retention.module.js';
import { PersistenceModule } from './persistence/persistence.module.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { RedisModule } from './common/redis/redis.module.js';
import { MetricsModule } from './system/metrics.module.js';
import { SystemModule } from './system/system.module.js';
import { EventsModule } from './events/events.module.js';
import { ShutdownCoordinator } from './bootstrap/shutdown-coordinator.js';
import { storeEntities } from './bootstrap/store-schema.js';
import { StorageModule } from './storage/storage.module.js';
import { StreamApiModule } from './stream/stream-api.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ClockModule } from './common/clock/clock.module.js';
import { LoggingModule } from './common/logging/logging.module.js';
import { TracingModule } from './common/tracing/tracing.module.js';
import { WebhookApiModule } from './webhook/webhook-api.module.js';
import { WebhookModule } from './webhook/webhook.module.js';

/**
 * The role decides the graph: the manager gets the HTTP API and the queue producer, the worker
 * gets the processor. `all` is both in one process.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    const roleModules: Type[] = [];
    // The stream routes before the job routes, whose GET v1/fetcher/:id would match v1/fetcher/streams.
    if (runsManager(config.role))
      roleModules.push(ConnectionApiModule, StreamApiModule, JobApiModule, WebhookApiModule, ResultRetentionModule);
    if (runsWorker(config.role)) roleModules.push(ExtractionModule);
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        // Right after the config: its shutdown hook then runs after those of the modules that log while stopping.
        LoggingModule.forRoot(),
        ClockModule,
        TracingModule,
        PersistenceModule.forRoot(storeEntities),
        AuthModule.forRoot(config),
        RedisModule,
        RateLimitModule,
        JobQueueModule,
        EventsModule,
        WebhookModule,
        StorageModule,
        MetricsModule,
        SystemModule.forRoot(config),
        ...roleModules,
      ],
      providers: [ShutdownCoordinator],
    };
  }
}
