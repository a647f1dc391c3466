import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type Repository } from 'typeorm';
import { API_KEY_ENTITY, type ApiKeyRecord } from './api-key.entity.js';

/** Product API keys. Lookups always go to the store, so a revocation holds on every replica at once. */
@Injectable()
export class ApiKeyRepository {
  private readonly keys: Repository<ApiKeyRecord>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.keys = dataSource.getRepository<ApiKeyRecord>(API_KEY_ENTITY);
  }

  async insert(record: ApiKeyRecord): Promise<void> {
    await this.keys.insert(record);
  }

  findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.keys.findOneBy({ keyHash, revokedAt: IsNull() });
  }

  async listActive(
    productName: string | undefined,
    window: { skip: number; take: number },
  ): Promise<{ items: ApiKeyRecord[]; total: number }> {
    const [items, total] = await this.keys.findAndCount({
      where: { revokedAt: IsNull(), ...(productName === undefined ? {} : { productName }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: window.skip,
      take: window.take,
    });
    return { items, total };
  }

  /** True when an active key was revoked now; false when there was none (unknown or already revoked). */
  async revoke(id: string, at: Date): Promise<boolean> {
    const result = await this.keys
      .createQueryBuilder()
      .update()
      .set({ revokedAt: at })
      .where('id = :id AND revoked_at IS NULL', { id })
      .execute();
    return (result.affected ?? 0) === 1;
  }
}
