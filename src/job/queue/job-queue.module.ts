import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { BullMqJobQueue } from './bullmq-job-queue.js';
import { InProcessJobQueue } from './in-process-job-queue.js';
import { JOB_CONSUMER, JOB_QUEUE, type JobQueue } from './job-queue.port.js';

const QUEUE_ADAPTER = Symbol('QUEUE_ADAPTER');

/** BullMQ when REDIS_URL is set, the in-process queue otherwise. One adapter serves both ports. */
@Global()
@Module({
  providers: [
    {
      provide: QUEUE_ADAPTER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => (config.redisUrl ? new BullMqJobQueue(config.redisUrl, config.queuePrefix) : new InProcessJobQueue()),
    },
    { provide: JOB_QUEUE, useExisting: QUEUE_ADAPTER },
    { provide: JOB_CONSUMER, useExisting: QUEUE_ADAPTER },
  ],
  exports: [JOB_QUEUE, JOB_CONSUMER],
})
export class JobQueueModule implements OnApplicationShutdown {
  constructor(@Inject(QUEUE_ADAPTER) private readonly adapter: JobQueue & { close?: () => Promise<void> }) {}

  async onApplicationShutdown(): Promise<void> {
    await this.adapter.close?.();
  }
}
