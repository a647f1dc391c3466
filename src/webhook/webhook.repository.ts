import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type QueryDeepPartialEntity, type Repository } from 'typeorm';
import { inTransaction } from '../persistence/transactions.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WEBHOOK_ENTITY, type WebhookRecord } from './webhook.entity.js';

/** The webhooks table: registrations, their sealed secret; a deleted one keeps its row (deleted_at). */
@Injectable()
export class WebhookRepository {
  private readonly hooks: Repository<WebhookRecord>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly deliveries: WebhookDeliveryRepository,
  ) {
    this.hooks = dataSource.getRepository<WebhookRecord>(WEBHOOK_ENTITY);
  }

  async insert(record: WebhookRecord): Promise<void> {
    await this.hooks.insert(record as QueryDeepPartialEntity<WebhookRecord>);
  }

  findLive(id: string): Promise<WebhookRecord | null> {
    return this.hooks.findOneBy({ id, deletedAt: IsNull() });
  }

  /** One page, oldest first; `products` 'all' for an operator, empty for none. */
  async list(
    products: readonly string[] | 'all',
    window: { skip: number; take: number },
  ): Promise<{ items: WebhookRecord[]; total: number }> {
    const query = this.hooks
      .createQueryBuilder('w')
      .where('w.deleted_at IS NULL')
      .orderBy('w.created_at', 'ASC')
      .addOrderBy('w.id', 'ASC')
      .skip(window.skip)
      .take(window.take);
    if (products !== 'all') {
      if (products.length === 0) query.andWhere('1 = 0');
      else query.andWhere('w.product_name IN (:...products)', { products: [...products] });
    }
    const [items, total] = await query.getManyAndCount();
    return { items, total };
  }

  /** The new sealed secret replaces the old one at once: the next attempt signs with it. */
  async replaceSecret(id: string, secretCiphertext: string, keyVersion: string): Promise<void> {
    await this.hooks.update({ id, deletedAt: IsNull() }, { secretCiphertext, keyVersion });
  }

  /** Soft delete; its pending deliveries become dead in the same transaction, so nothing more is sent. */
  async remove(id: string, at: Date): Promise<void> {
    await inTransaction(this.dataSource, async (manager) => {
      await manager.getRepository<WebhookRecord>(WEBHOOK_ENTITY).update({ id, deletedAt: IsNull() }, { deletedAt: at });
      await this.deliveries.abandon(manager, id);
    });
  }

  /** Every live webhook's sealed secret and version (credential rotation). */
  sealedSecrets(): Promise<Pick<WebhookRecord, 'id' | 'secretCiphertext' | 'keyVersion'>[]> {
    return this.hooks.find({ select: { id: true, secretCiphertext: true, keyVersion: true }, where: { deletedAt: IsNull() } });
  }
}
