import { Module } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { EVENT_PUBLISHER } from './event-publisher.port.js';
import { EventSigner } from './event-signature.js';
import { OutboxRelay } from './outbox-relay.service.js';
import { OutboxRepository } from './outbox.repository.js';
import { RmqEventPublisher } from './rmq-event.publisher.js';

/**
 * Terminal events (docs/job-lifecycle.md, "Terminal events"): always in the outbox, in the
 * transaction of the terminal status; relayed to RabbitMQ when EVENTS_TRANSPORT=rmq. With `none`
 * the outbox is the record. Every message is signed with the current master key version's external
 * HMAC key (docs/security.md, "Event signatures"). Imported where the outbox is used: the job
 * module (terminal transactions), the system module (readiness, backlog) and the root (the relay).
 */
@Module({
  providers: [
    OutboxRepository,
    OutboxRelay,
    {
      provide: EVENT_PUBLISHER,
      inject: [APP_CONFIG, Clock],
      useFactory: (config: AppConfig, clock: Clock) =>
        config.events.transport === 'rmq'
          ? new RmqEventPublisher(
              config.events.url as string,
              config.events.exchange,
              EventSigner.fromMasterKey(config.encryption.masterKey, config.encryption.keyVersion),
              clock,
            )
          : null,
    },
  ],
  exports: [OutboxRelay, OutboxRepository, EVENT_PUBLISHER],
})
export class EventsModule {}
