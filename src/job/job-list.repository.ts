import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import type { JobSummarySource } from './dto/job-summary.dto.js';
import { JOB_ENTITY, type JobRecord } from './job.entity.js';
import type { JobStatus } from './job-status.js';

export interface JobListFilter {
  /** Only jobs of these products (none when empty); every product when absent. */
  readonly productNames?: readonly string[];
  readonly status?: JobStatus;
  /** created_at ≥ from */
  readonly createdFrom?: Date;
  /** created_at < before */
  readonly createdBefore?: Date;
}

export interface JobPageWindow {
  readonly skip: number;
  readonly take: number;
  readonly order: 'ASC' | 'DESC';
}

/** The summary's columns: metadata, filters and per-table counts can be large and a list never shows them. */
const SUMMARY_COLUMNS: ReadonlyArray<keyof JobSummarySource> = [
  'id',
  'status',
  'productName',
  'mappedFields',
  'createdAt',
  'startedAt',
  'completedAt',
  'resultSha256',
  'resultSizeBytes',
  'resultRowCount',
  'output',
  'resultParts',
  'error',
  'progress',
  'resultDeleteRequestedAt',
  'resultDeletedAt',
];

/**
 * Pages of jobs. The product scope is part of the query, so `total` counts exactly what the
 * caller may see; (product_name, created_at) and (status, created_at) serve the usual filters.
 */
@Injectable()
export class JobListRepository {
  private readonly jobs: Repository<JobRecord>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.jobs = dataSource.getRepository<JobRecord>(JOB_ENTITY);
  }

  /** Counts every match; returns one window, newest or oldest first, ties in id order so pages never overlap. */
  async list(filter: JobListFilter, window: JobPageWindow): Promise<{ items: JobSummarySource[]; total: number }> {
    const query = this.jobs
      .createQueryBuilder('j')
      .select(SUMMARY_COLUMNS.map((column) => `j.${column}`))
      .orderBy('j.created_at', window.order)
      .addOrderBy('j.id', window.order)
      .skip(window.skip)
      .take(window.take);
    if (filter.productNames !== undefined) {
      if (filter.productNames.length === 0) query.andWhere('1 = 0');
      else query.andWhere('j.product_name IN (:...productNames)', { productNames: [...filter.productNames] });
    }
    if (filter.status !== undefined) query.andWhere('j.status = :status', { status: filter.status });
    if (filter.createdFrom) query.andWhere('j.created_at >= :createdFrom', { createdFrom: filter.createdFrom });
    if (filter.createdBefore) query.andWhere('j.created_at < :createdBefore', { createdBefore: filter.createdBefore });
    const [items, total] = await query.getManyAndCount();
    return { items, total };
  }

  /** Jobs per status, every product: one GROUP BY over the (status, …) indexes, for /metrics. */
  async countByStatus(): Promise<Map<JobStatus, number>> {
    const rows: { status: JobStatus; n: number | string }[] = await this.jobs
      .createQueryBuilder('j')
      .select('j.status', 'status')
      .addSelect('COUNT(*)', 'n')
      .groupBy('j.status')
      .getRawMany();
    return new Map(rows.map((row) => [row.status, Number(row.n)]));
  }
}
