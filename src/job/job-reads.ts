import type { DataSource } from 'typeorm';
import { EntityRows } from '../persistence/entity-rows.js';
import { sqlParameters } from '../persistence/sql-parameters.js';
import { JOB_DATASOURCE_ENTITY, JOB_ENTITY, type JobDatasourceRecord, type JobRecord } from './job.entity.js';

/**
 * The reads every submission and every job makes, as plain SQL hydrated through the entities'
 * metadata (both stores): building and hydrating them through the query builder cost more CPU
 * than the database spent answering.
 */
export class JobReads {
  private readonly jobs: EntityRows<JobRecord>;
  private readonly datasources: EntityRows<JobDatasourceRecord>;

  constructor(private readonly dataSource: DataSource) {
    this.jobs = new EntityRows(dataSource, JOB_ENTITY);
    this.datasources = new EntityRows(dataSource, JOB_DATASOURCE_ENTITY);
  }

  async newestByHash(requestHash: string, since: Date): Promise<JobRecord | null> {
    const { jobs } = this;
    const parameters = sqlParameters(this.dataSource);
    const where = `${jobs.column('requestHash')} = ${parameters.bind(requestHash)} AND ${jobs.column('createdAt')} >= ${jobs.bind('createdAt', since, parameters)}`;
    const found = await jobs.select(this.dataSource, `${where} ORDER BY ${jobs.column('createdAt')} DESC LIMIT 1`, parameters);
    return found[0] ?? null;
  }

  datasourcesOf(jobId: string): Promise<JobDatasourceRecord[]> {
    const parameters = sqlParameters(this.dataSource);
    return this.datasources.select(this.dataSource, `${this.datasources.column('jobId')} = ${parameters.bind(jobId)}`, parameters);
  }
}
