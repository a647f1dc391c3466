import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull, type FindOptionsWhere, type QueryDeepPartialEntity, type Repository } from 'typeorm';
import { CONNECTION_ENTITY, type ConnectionRecord } from './connection.entity.js';
import type { DatasourceType } from './datasource-type.js';

export interface ConnectionListFilter {
  readonly productName?: string;
  readonly type?: DatasourceType;
}

export interface PageRequest {
  readonly page: number;
  readonly limit: number;
  readonly sortOrder: 'ASC' | 'DESC';
}

/** Live (not soft-deleted) connection records. */
@Injectable()
export class ConnectionRepository {
  private readonly repository: Repository<ConnectionRecord>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.repository = dataSource.getRepository<ConnectionRecord>(CONNECTION_ENTITY);
  }

  async insert(record: ConnectionRecord): Promise<void> {
    // JSON columns hold arbitrary objects, which TypeORM's deep-partial type cannot describe.
    await this.repository.insert(record as QueryDeepPartialEntity<ConnectionRecord>);
  }

  findById(id: string): Promise<ConnectionRecord | null> {
    return this.repository.findOneBy({ id, deletedAt: IsNull() });
  }

  findByConfigNames(configNames: readonly string[]): Promise<ConnectionRecord[]> {
    if (configNames.length === 0) return Promise.resolve([]);
    return this.repository.findBy({ configName: In([...configNames]), deletedAt: IsNull() });
  }

  async list(filter: ConnectionListFilter, page: PageRequest): Promise<{ items: ConnectionRecord[]; total: number }> {
    const where: FindOptionsWhere<ConnectionRecord> = { deletedAt: IsNull() };
    if (filter.productName !== undefined) where.productName = filter.productName;
    if (filter.type !== undefined) where.type = filter.type;
    const [items, total] = await this.repository.findAndCount({
      where,
      order: { createdAt: page.sortOrder, id: page.sortOrder },
      skip: (page.page - 1) * page.limit,
      take: page.limit,
    });
    return { items, total };
  }
}
