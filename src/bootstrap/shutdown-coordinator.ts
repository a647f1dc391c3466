import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { REDIS_CLIENT } from '../common/redis/redis.module.js';
import { EVENT_PUBLISHER, type EventPublisher } from '../events/event-publisher.port.js';
import { OutboxRelay } from '../events/outbox-relay.service.js';
import { JOB_QUEUE, type JobQueue } from '../job/queue/job-queue.port.js';
import { OBJECT_STORE, type ObjectStore } from '../storage/object-store.port.js';
import { ReadinessService } from '../system/readiness.service.js';
import { WebhookDispatcher } from '../webhook/webhook-dispatcher.service.js';

/**
 * Graceful shutdown in the order docs/reliability.md, "Shutdown" gives. Provided by the root
 * module, whose hooks Nest runs first: readiness turns 503 at once; the worker's processor then
 * drains its jobs (its own hook); once HTTP has closed, the queue, the broker, the store's pool,
 * Redis and the object store close in that order. The modules' own close hooks that run later find
 * them closed already.
 */
@Injectable()
export class ShutdownCoordinator implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Lifecycle');

  constructor(
    private readonly readiness: ReadinessService,
    private readonly relay: OutboxRelay,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue & { close?: () => Promise<void> },
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Optional() @Inject(EVENT_PUBLISHER) private readonly publisher?: EventPublisher | null,
    @Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null,
    @Optional() private readonly webhooks?: WebhookDispatcher,
  ) {}

  onApplicationBootstrap(): void {
    this.relay.start();
    // Broker or not: webhooks are delivered from the store.
    this.webhooks?.start();
  }

  beforeApplicationShutdown(signal?: string): void {
    this.readiness.markDraining();
    this.logger.log(`draining${signal ? ` on ${signal}` : ''}: readiness is now 503`);
  }

  async onApplicationShutdown(signal?: string): Promise<void> {
    const step = async (name: string, work: () => Promise<unknown> | unknown) => {
      try {
        await work();
      } catch (error) {
        this.logger.warn(`closing ${name}: ${(error as Error).message}`);
      }
    };
    await step('event relay', () => this.relay.stop());
    await step('webhook dispatcher', () => this.webhooks?.stop());
    await step('queue', () => this.queue.close?.());
    await step('broker', () => this.publisher?.close());
    await step('database', () => (this.dataSource.isInitialized ? this.dataSource.destroy() : undefined));
    await step('redis', () => this.redis?.disconnect());
    await step('object store', () => this.store.close());
    this.logger.log(`Fetcher stopped${signal ? ` (${signal})` : ''}`);
  }
}
