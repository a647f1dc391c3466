import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { actsFor, type Principal } from '../auth/principal.js';
import type { ProductScope } from '../auth/product-scope.js';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import type { PageRequest } from '../common/http/pagination.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { EgressRefusedError } from '../engine/errors/engine-errors.js';
import type { CreateWebhookDto } from './dto/create-webhook.dto.js';
import {
  WebhookDeliveryDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookPageDto,
  WebhookWithSecretDto,
} from './dto/webhook-response.dto.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { newWebhookSecret } from './webhook-signature.js';
import type { WebhookRecord } from './webhook.entity.js';
import { forbiddenWebhookHost, invalidWebhookUrl, webhookNotFound } from './webhook.error.js';
import { WebhookRepository } from './webhook.repository.js';

/**
 * Webhook registrations (docs/webhooks.md): product-scoped like connections. The secret is made
 * here, sealed before it is stored and returned only by create and rotate-secret.
 */
@Injectable()
export class WebhookService {
  constructor(
    private readonly hooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly cipher: CredentialCipher,
    private readonly guard: EgressGuard,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async create(productName: string, body: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    const url = await this.checkedUrl(body.url);
    const secret = newWebhookSecret();
    const record: WebhookRecord = {
      id: this.ids.orderedUuid(),
      productName,
      url,
      events: [...body.events],
      description: body.description ?? null,
      secretCiphertext: this.cipher.encrypt(secret),
      keyVersion: this.cipher.keyVersion,
      createdAt: this.clock.now(),
      deletedAt: null,
    };
    await this.hooks.insert(record);
    return { ...WebhookDto.from(record), secret };
  }

  async list(scope: ProductScope, page: PageRequest): Promise<WebhookPageDto> {
    const { items, total } = await this.hooks.list(scope.products, { skip: (page.page - 1) * page.limit, take: page.limit });
    return { items: items.map((record) => WebhookDto.from(record)), page: page.page, limit: page.limit, total };
  }

  async get(id: string, principal: Principal): Promise<WebhookDto> {
    return WebhookDto.from(await this.visible(id, principal));
  }

  async remove(id: string, principal: Principal): Promise<void> {
    await this.visible(id, principal);
    await this.hooks.remove(id, this.clock.now());
  }

  async rotateSecret(id: string, principal: Principal): Promise<WebhookWithSecretDto> {
    const record = await this.visible(id, principal);
    const secret = newWebhookSecret();
    await this.hooks.replaceSecret(id, this.cipher.encrypt(secret), this.cipher.keyVersion);
    return { ...WebhookDto.from(record), secret };
  }

  async deliveriesOf(id: string, principal: Principal, page: PageRequest): Promise<WebhookDeliveryPageDto> {
    await this.visible(id, principal);
    const { items, total } = await this.deliveries.page(id, { skip: (page.page - 1) * page.limit, take: page.limit });
    return { items: items.map((view) => WebhookDeliveryDto.from(view)), page: page.page, limit: page.limit, total };
  }

  /** The live webhook if the principal may see it; 404 otherwise, the same for another product's and a missing one. */
  private async visible(id: string, principal: Principal): Promise<WebhookRecord> {
    const record = await this.hooks.findLive(id);
    if (!record || !actsFor(principal, record.productName)) throw webhookNotFound();
    return record;
  }

  /** An absolute http(s) URL without userinfo whose host the egress policy allows now (every address it resolves to). */
  private async checkedUrl(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalidWebhookUrl('url must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidWebhookUrl('url must use http or https');
    if (url.username !== '' || url.password !== '') throw invalidWebhookUrl('url must not carry a user name or password');
    if (url.hash !== '') throw invalidWebhookUrl('url must not have a #fragment');
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (host === '' || (isIP(host) === 0 && !/^[A-Za-z0-9.-]+$/.test(host))) throw invalidWebhookUrl('url must name a host');
    try {
      await this.guard.assertAllowed(host);
    } catch (error) {
      if (error instanceof EgressRefusedError) throw forbiddenWebhookHost();
      throw error;
    }
    return url.toString();
  }
}
