import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull, type QueryDeepPartialEntity, type Repository, type SelectQueryBuilder } from 'typeorm';
import { EntityRows } from '../persistence/entity-rows.js';
import { sqlParameters } from '../persistence/sql-parameters.js';
import { CONNECTION_ENTITY, type ConnectionRecord } from './connection.entity.js';
import type { DatasourceType } from '../engine/connectors/datasource-type.js';

export interface ConnectionListFilter {
  /** Only connections of these products (none when empty). */
  readonly productNames?: readonly string[];
  /** Only connections without a product. */
  readonly unassigned?: boolean;
  readonly type?: DatasourceType;
  readonly host?: string;
  readonly databaseName?: string;
  /** created_at ≥ from */
  readonly createdFrom?: Date;
  /** created_at < before */
  readonly createdBefore?: Date;
  /** metadata[key] equals value (string comparison) */
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface PageWindow {
  readonly skip: number;
  readonly take: number;
  readonly order: 'ASC' | 'DESC';
}

/** Live (not soft-deleted) connection records. */
@Injectable()
export class ConnectionRepository {
  private readonly repository: Repository<ConnectionRecord>;
  private readonly postgres: boolean;
  private rowsOf: EntityRows<ConnectionRecord> | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.repository = dataSource.getRepository<ConnectionRecord>(CONNECTION_ENTITY);
    this.postgres = dataSource.options.type === 'postgres';
  }

  /** Raw reads for the per-job lookups (every submission and every job makes them). */
  private get rows(): EntityRows<ConnectionRecord> {
    return (this.rowsOf ??= new EntityRows(this.dataSource, CONNECTION_ENTITY));
  }

  async insert(record: ConnectionRecord): Promise<void> {
    // JSON columns hold arbitrary objects, which TypeORM's deep-partial type cannot describe.
    await this.repository.insert(record as QueryDeepPartialEntity<ConnectionRecord>);
  }

  async findById(id: string): Promise<ConnectionRecord | null> {
    const parameters = sqlParameters(this.dataSource);
    const found = await this.rows.select(
      this.dataSource,
      `${this.rows.column('id')} = ${parameters.bind(id)} AND ${this.rows.column('deletedAt')} IS NULL`,
      parameters,
    );
    return found[0] ?? null;
  }

  findByIds(ids: readonly string[]): Promise<ConnectionRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.repository.findBy({ id: In([...ids]), deletedAt: IsNull() });
  }

  /**
   * Live connections with these names, of these products only ('all': of every product, and the
   * unassigned ones). Names are unique within a product, so a name may match once per product.
   */
  findByConfigNames(configNames: readonly string[], products: readonly string[] | 'all'): Promise<ConnectionRecord[]> {
    if (configNames.length === 0 || products.length === 0) return Promise.resolve([]);
    const parameters = sqlParameters(this.dataSource);
    const list = (values: readonly string[]) => values.map((value) => parameters.bind(value)).join(', ');
    const named = `${this.rows.column('configName')} IN (${list(configNames)}) AND ${this.rows.column('deletedAt')} IS NULL`;
    const owned = products === 'all' ? '' : ` AND ${this.rows.column('productName')} IN (${list(products)})`;
    return this.rows.select(this.dataSource, named + owned, parameters);
  }

  /** Counts every match; returns the rows of one window, oldest or newest first. */
  async list(filter: ConnectionListFilter, window: PageWindow): Promise<{ items: ConnectionRecord[]; total: number }> {
    const query = this.filtered(filter)
      .orderBy('c.created_at', window.order)
      .addOrderBy('c.id', window.order)
      .skip(window.skip)
      .take(window.take);
    const [items, total] = await query.getManyAndCount();
    return { items, total };
  }

  /** Writes `changes` if the row is still live; false when it is not. */
  async update(id: string, changes: Partial<ConnectionRecord>): Promise<boolean> {
    const { id: _id, ...columns } = changes;
    void _id;
    const result = await this.repository
      .createQueryBuilder()
      .update()
      .set(columns as QueryDeepPartialEntity<ConnectionRecord>)
      .where('id = :id AND deleted_at IS NULL', { id })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** One-time assignment: only a live connection without a product changes. */
  async assignProduct(id: string, productName: string, at: Date): Promise<boolean> {
    const result = await this.repository
      .createQueryBuilder()
      .update()
      .set({ productName, updatedAt: at })
      .where("id = :id AND deleted_at IS NULL AND (product_name IS NULL OR product_name = '')", { id })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** Soft delete; the secrets go with it, since nothing may ever use them again. */
  async softDelete(id: string, at: Date): Promise<boolean> {
    return this.update(id, {
      deletedAt: at,
      updatedAt: at,
      passwordEncrypted: '',
      sslCaEncrypted: null,
      sslCertEncrypted: null,
      sslKeyEncrypted: null,
    });
  }

  private filtered(filter: ConnectionListFilter): SelectQueryBuilder<ConnectionRecord> {
    const query = this.repository.createQueryBuilder('c').where('c.deleted_at IS NULL');
    if (filter.productNames !== undefined) {
      if (filter.productNames.length === 0) query.andWhere('1 = 0');
      else query.andWhere('c.product_name IN (:...productNames)', { productNames: [...filter.productNames] });
    }
    if (filter.unassigned) query.andWhere("(c.product_name IS NULL OR c.product_name = '')");
    if (filter.type !== undefined) query.andWhere('c.type = :type', { type: filter.type });
    if (filter.host !== undefined) query.andWhere('c.host = :host', { host: filter.host });
    if (filter.databaseName !== undefined) query.andWhere('c.database_name = :databaseName', { databaseName: filter.databaseName });
    if (filter.createdFrom) query.andWhere('c.created_at >= :createdFrom', { createdFrom: filter.createdFrom });
    if (filter.createdBefore) query.andWhere('c.created_at < :createdBefore', { createdBefore: filter.createdBefore });
    Object.entries(filter.metadata ?? {}).forEach(([key, value], index) => {
      // Keys are bound as parameters (never spliced into SQL); only string values match.
      const path = this.postgres ? `c.metadata ->> :metaKey${index}` : `CAST(json_extract(c.metadata, :metaKey${index}) AS TEXT)`;
      query.andWhere(`${path} = :metaValue${index}`, {
        [`metaKey${index}`]: this.postgres ? key : `$."${key.replace(/["\\]/g, '')}"`,
        [`metaValue${index}`]: value,
      });
    });
    return query;
  }
}
