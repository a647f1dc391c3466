import { Module } from '@nestjs/common';
import { DatasourceModule } from '../datasource/datasource.module.js';
import { WebhookController } from './webhook.controller.js';
import { WebhookModule } from './webhook.module.js';
import { WebhookService } from './webhook.service.js';

/** The webhook routes (manager role). */
@Module({ imports: [WebhookModule, DatasourceModule], controllers: [WebhookController], providers: [WebhookService] })
export class WebhookApiModule {}
