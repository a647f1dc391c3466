import type { DataSource } from 'typeorm';
import { EntityRows, type SqlExpression } from '../persistence/entity-rows.js';
import { sqlParameters } from '../persistence/sql-parameters.js';
import {
  JOB_DATASOURCE_ENTITY,
  JOB_ENTITY,
  JOB_TRANSITION_ENTITY,
  type JobDatasourceRecord,
  type JobRecord,
  type JobTransitionRecord,
} from './job.entity.js';
import { JobStatus } from './job-status.js';

/**
 * The job store's two most frequent writes as one statement each on PostgreSQL, where the query
 * builder needs a transaction of five round trips: a submission's insert, and a worker's claim.
 * One statement is atomic by itself, so neither leaves half its rows behind; SQLite keeps the
 * transaction (JobRepository).
 */
export class PostgresJobStatements {
  private readonly jobs: EntityRows<JobRecord>;
  private readonly datasources: EntityRows<JobDatasourceRecord>;
  private readonly transitions: EntityRows<JobTransitionRecord>;

  constructor(private readonly dataSource: DataSource) {
    this.jobs = new EntityRows(dataSource, JOB_ENTITY);
    this.datasources = new EntityRows(dataSource, JOB_DATASOURCE_ENTITY);
    this.transitions = new EntityRows(dataSource, JOB_TRANSITION_ENTITY);
  }

  /** The job, its datasources and its first transition; a unique index it breaks fails the whole statement. */
  async insertPending(job: JobRecord, datasources: readonly JobDatasourceRecord[], accepted: JobTransitionRecord): Promise<void> {
    const parameters = sqlParameters(this.dataSource);
    const parts = [`inserted_job AS (${this.jobs.insert(job, parameters)} RETURNING 1)`];
    if (datasources.length > 0) parts.push(`inserted_datasources AS (${this.datasources.insertMany(datasources, parameters)})`);
    parts.push(`inserted_transition AS (${this.transitions.insert(accepted, parameters)})`);
    await this.dataSource.query(`WITH ${parts.join(', ')} SELECT 1 FROM inserted_job`, parameters.values);
  }

  /**
   * pending → processing in one statement: the row is updated only while pending (a concurrent
   * claim waits for the row's lock, then finds it processing and changes nothing), its transition
   * is written only when it was, and the job comes back as it now is; null when it was not pending.
   */
  async claim(
    id: string,
    columns: { readonly [K in keyof JobRecord]?: JobRecord[K] | SqlExpression },
    claimed: JobTransitionRecord,
  ): Promise<JobRecord | null> {
    const parameters = sqlParameters(this.dataSource);
    const set = this.jobs.set({ ...columns, status: JobStatus.Processing }, parameters);
    const where = `${this.jobs.column('id')} = ${parameters.bind(id)} AND ${this.jobs.column('status')} = ${parameters.bind(JobStatus.Pending)}`;
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `WITH claimed AS (UPDATE ${this.jobs.table} SET ${set} WHERE ${where} RETURNING *),
       recorded AS (${this.transitions.insertFrom(claimed, 'claimed', parameters)})
       SELECT * FROM claimed`,
      parameters.values,
    );
    return rows.length === 0 ? null : this.jobs.hydrate(rows[0]);
  }
}
