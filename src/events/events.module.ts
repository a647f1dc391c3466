import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { EVENT_PUBLISHER } from './event-publisher.port.js';
import { OutboxRelay } from './outbox-relay.service.js';
import { OutboxRepository } from './outbox.repository.js';
import { RmqEventPublisher } from './rmq-event.publisher.js';

/**
 * Terminal events (docs/job-lifecycle.md, "Terminal events"): always in the outbox, in the
 * transaction of the terminal status; relayed to RabbitMQ when EVENTS_TRANSPORT=rmq. With `none`
 * the outbox is the record.
 */
@Global()
@Module({
  providers: [
    OutboxRepository,
    OutboxRelay,
    {
      provide: EVENT_PUBLISHER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.events.transport === 'rmq' ? new RmqEventPublisher(config.events.url as string, config.events.exchange) : null,
    },
  ],
  exports: [OutboxRelay, OutboxRepository, EVENT_PUBLISHER],
})
export class EventsModule {}
