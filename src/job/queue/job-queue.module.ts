import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { InProcessJobQueue } from './in-process-job-queue.js';
import { JOB_CONSUMER, JOB_QUEUE, type JobConsumer, type JobQueue } from './job-queue.port.js';

const QUEUE_ADAPTER = Symbol('QUEUE_ADAPTER');

/**
 * BullMQ when REDIS_URL is set, the in-process queue otherwise. One adapter serves both ports.
 * Imported where the queue is used: the job API (producer), extraction (consumer, recovery), the
 * system module (readiness, depth) and the root (shutdown).
 * BullMQ and ioredis are imported only when they are used: the embedded mode never loads them.
 */
@Module({
  providers: [
    {
      provide: QUEUE_ADAPTER,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<JobQueue & JobConsumer> => {
        if (!config.redisUrl) return new InProcessJobQueue();
        const { BullMqJobQueue } = await import('./bullmq-job-queue.js');
        return new BullMqJobQueue(config.redisUrl, config.queuePrefix);
      },
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
