import { EntitySchema } from 'typeorm';
import { bigintAsNumber, columnTypes, type DatabaseKind } from '../persistence/database-kind.js';
import type { ErrorDetail } from '../engine/errors/fetcher-error.js';
import type { JobStatus } from './job-status.js';
import type { DataRequestLimits, Filters, MappedFields } from '../engine/request/data-request.js';
import type { ResultOutput } from '../engine/formats/output-format.js';
import type { ResultPart } from '../engine/formats/result-parts.js';
import type { IncrementalRequest, StreamMarks, TableRange } from '../engine/request/incremental-request.js';

export interface JobErrorInfo {
  code: string;
  message: string;
  details?: ErrorDetail[];
}

/**
 * `dataRequest.incremental` as the job recorded it (docs/incremental.md): the request, the marks it
 * starts from and, once completed, what each range covered.
 */
export interface JobIncremental extends IncrementalRequest {
  /**
   * The stream's committed marks of this job's cursor tables, read at submission: every attempt
   * starts above them, and the completion commits only while the stream still holds them.
   */
  readonly from: StreamMarks;
  /**
   * Each cursor table's range, `tables[configName][tableKey]`: as planned at submission (`to` and
   * `rows` null), then as read once the job completed.
   */
  readonly tables?: Readonly<Record<string, Readonly<Record<string, JobTableRange>>>>;
}

/** A cursor table's range; `rows` (and `to`, when it had no mark) null until the job completed. */
export type JobTableRange = Omit<TableRange, 'rows'> & { readonly rows: number | null };

export interface JobRecord {
  id: string;
  status: JobStatus;
  requestHash: string;
  /** The request hash while this job answers duplicates; null once failed or past the window. */
  dedupKey: string | null;
  metadata: Record<string, unknown>;
  /** `metadata.source`, trimmed and lower-cased: the product that owns the job. */
  productName: string | null;
  mappedFields: MappedFields;
  filters: Filters | null;
  limits: DataRequestLimits | null;
  /** What the result is written as; null (or absent) for the default (json, none), as on every job of before formats. */
  output?: ResultOutput | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  attempts: number;
  workerId: string | null;
  leaseExpiresAt: Date | null;
  resultPath: string | null;
  resultHmac: string | null;
  resultSha256: string | null;
  resultSizeBytes: number | null;
  resultRowCount: number | null;
  resultRowCounts: Record<string, Record<string, number>> | null;
  /** Version of the master key the result was sealed with (its HMAC and encryption keys derive from it). */
  resultKeyVersion: string | null;
  /** A per-table result's parts (csv, parquet), in result order; resultPath then names their manifest. */
  resultParts?: ResultPart[] | null;
  error: JobErrorInfo | null;
  /** Written by the worker with its lease renewals; on a completed job, the final per-table counts. */
  progress: JobProgress | null;
  /** A deletion of the result was asked for (DELETE, or retention): the result is gone for consumers. */
  resultDeleteRequestedAt: Date | null;
  /** The object was deleted from the store. */
  resultDeletedAt: Date | null;
  /** An incremental job's stream (`incremental.stream`); at most one job of a stream is active at a time. */
  streamName?: string | null;
  incremental?: JobIncremental | null;
}

export type TableProgressStatus = 'pending' | 'reading' | 'done';

export interface TableProgress {
  status: TableProgressStatus;
  rows: number;
}

export interface JobProgress {
  rowsRead: number;
  /** Plaintext JSON bytes written to the result so far. */
  bytesWritten: number;
  startedAt: string;
  updatedAt: string;
  /** Per datasource config name, per table key. */
  tables: Record<string, Record<string, TableProgress>>;
}

/** One datasource a job reads: the name it used, and the connection that name resolved to at submission. */
export interface JobDatasourceRecord {
  jobId: string;
  configName: string;
  /** The stored connection's or internal datasource's id; null only on jobs submitted before names were per product. */
  connectionId: string | null;
}

/** One status change of a job, in the same transaction as the change itself. */
export interface JobTransitionRecord {
  id: string;
  jobId: string;
  fromStatus: string | null;
  toStatus: string;
  workerId: string | null;
  reason: string | null;
  at: Date;
}

export const JOB_ENTITY = 'Job';
export const JOB_DATASOURCE_ENTITY = 'JobDatasource';
export const JOB_TRANSITION_ENTITY = 'JobTransition';

export function jobEntities(kind: DatabaseKind): EntitySchema[] {
  const types = columnTypes(kind);
  const nullableTimestamp = (name: string) => ({ type: types.timestamp, name, nullable: true });
  const job = new EntitySchema<JobRecord>({
    name: JOB_ENTITY,
    tableName: 'jobs',
    columns: {
      id: { type: 'varchar', length: 36, primary: true },
      status: { type: 'varchar', length: 16 },
      requestHash: { type: 'varchar', length: 64, name: 'request_hash' },
      dedupKey: { type: 'varchar', length: 64, name: 'dedup_key', nullable: true },
      metadata: { type: types.json },
      productName: { type: 'varchar', length: 100, name: 'product_name', nullable: true },
      mappedFields: { type: types.json, name: 'mapped_fields' },
      filters: { type: types.json, nullable: true },
      limits: { type: types.json, nullable: true },
      output: { type: types.json, nullable: true },
      createdAt: { type: types.timestamp, name: 'created_at' },
      updatedAt: { type: types.timestamp, name: 'updated_at' },
      startedAt: nullableTimestamp('started_at'),
      completedAt: nullableTimestamp('completed_at'),
      attempts: { type: 'integer', default: 0 },
      workerId: { type: 'varchar', length: 128, name: 'worker_id', nullable: true },
      leaseExpiresAt: nullableTimestamp('lease_expires_at'),
      resultPath: { type: 'text', name: 'result_path', nullable: true },
      resultHmac: { type: 'varchar', length: 64, name: 'result_hmac', nullable: true },
      resultSha256: { type: 'varchar', length: 64, name: 'result_sha256', nullable: true },
      resultSizeBytes: { type: 'bigint', name: 'result_size_bytes', nullable: true, transformer: bigintAsNumber },
      resultRowCount: { type: 'bigint', name: 'result_row_count', nullable: true, transformer: bigintAsNumber },
      resultRowCounts: { type: types.json, name: 'result_row_counts', nullable: true },
      resultKeyVersion: { type: 'varchar', length: 32, name: 'result_key_version', nullable: true },
      resultParts: { type: types.json, name: 'result_parts', nullable: true },
      error: { type: types.json, nullable: true },
      progress: { type: types.json, nullable: true },
      resultDeleteRequestedAt: nullableTimestamp('result_delete_requested_at'),
      resultDeletedAt: nullableTimestamp('result_deleted_at'),
      streamName: { type: 'varchar', length: 128, name: 'stream_name', nullable: true },
      incremental: { type: types.json, nullable: true },
    },
  });
  const jobDatasource = new EntitySchema<JobDatasourceRecord>({
    name: JOB_DATASOURCE_ENTITY,
    tableName: 'job_datasources',
    columns: {
      jobId: { type: 'varchar', length: 36, name: 'job_id', primary: true },
      configName: { type: 'varchar', length: 100, name: 'config_name', primary: true },
      connectionId: { type: 'varchar', length: 36, name: 'connection_id', nullable: true },
    },
  });
  const transition = new EntitySchema<JobTransitionRecord>({
    name: JOB_TRANSITION_ENTITY,
    tableName: 'job_transitions',
    columns: {
      id: { type: 'varchar', length: 36, primary: true },
      jobId: { type: 'varchar', length: 36, name: 'job_id' },
      fromStatus: { type: 'varchar', length: 16, name: 'from_status', nullable: true },
      toStatus: { type: 'varchar', length: 16, name: 'to_status' },
      workerId: { type: 'varchar', length: 128, name: 'worker_id', nullable: true },
      reason: { type: 'varchar', length: 255, nullable: true },
      at: { type: types.timestamp },
    },
  });
  return [job, jobDatasource, transition];
}
