import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatasourceModule } from '../datasource/datasource.module.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.service.js';
import { HttpWebhookSender, WebhookSender } from './webhook-sender.js';
import { WebhookRepository } from './webhook.repository.js';

/**
 * Webhook storage and delivery, in both roles (docs/webhooks.md): the job repository fans
 * terminal events out into deliveries in the terminal transaction, and every process that runs
 * the outbox relay runs a dispatcher. Imported by the job module (the fan-out) and the root (the
 * dispatcher); the routes are WebhookApiModule's.
 */
@Module({
  imports: [DatasourceModule],
  providers: [
    WebhookDeliveryRepository,
    WebhookRepository,
    WebhookDispatcher,
    {
      provide: WebhookSender,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new HttpWebhookSender({ connectTimeoutMs: config.webhooks.connectTimeoutMs, responseTimeoutMs: config.webhooks.responseTimeoutMs }),
    },
  ],
  exports: [WebhookDeliveryRepository, WebhookRepository, WebhookDispatcher],
})
export class WebhookModule {}
