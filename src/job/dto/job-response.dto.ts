import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '../../common/http/api-docs.js';
import { ErrorDetailDto } from '../../common/http/error-envelope.dto.js';
import {
  byDatasourceAndTable,
  FILTERS_SCHEMA,
  JOB_METADATA_SCHEMA,
  MAPPED_FIELDS_SCHEMA,
  ROW_COUNTS_SCHEMA,
} from '../../common/http/json-shapes.js';
import { OUTPUT_COMPRESSIONS, OUTPUT_FORMATS, type OutputCompression, type OutputFormat } from '../../engine/formats/output-format.js';
import type { ResultPart } from '../../engine/formats/result-parts.js';
import type { JobRecord } from '../job.entity.js';
import { outputOf } from '../job-output.js';
import { JobIncrementalDto } from './job-incremental.dto.js';
import { JobStatus } from '../job-status.js';

export const JOB_CREATED_MESSAGE = 'Job created and queued for processing';
export const JOB_DUPLICATE_MESSAGE = 'Duplicate request detected - returning existing job';

export class JobAcceptedDto {
  @ApiProperty({ format: 'uuid', example: '0190f3c2-0000-7000-8000-000000000000' }) jobId!: string;
  @ApiProperty({
    enum: JobStatus,
    example: JobStatus.Pending,
    description: 'pending for a new job; the existing job’s status for a duplicate.',
  })
  status!: JobStatus;
  @ApiProperty({ format: 'date-time', example: '2026-07-13T09:30:00.000Z' }) createdAt!: string;
  @ApiProperty({ enum: [JOB_CREATED_MESSAGE, JOB_DUPLICATE_MESSAGE], example: JOB_CREATED_MESSAGE }) message!: string;

  static of(job: JobRecord, duplicate: boolean): JobAcceptedDto {
    return {
      jobId: job.id,
      status: job.status,
      createdAt: job.createdAt.toISOString(),
      message: duplicate ? JOB_DUPLICATE_MESSAGE : JOB_CREATED_MESSAGE,
    };
  }
}

export class JobOutputDto {
  @ApiProperty({ enum: OUTPUT_FORMATS, example: 'json' }) format!: OutputFormat;
  @ApiProperty({ enum: OUTPUT_COMPRESSIONS, example: 'none' }) compression!: OutputCompression;
}

const PART_EXAMPLE_SHA256 = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';

/** One table's part of a per-table result (csv, parquet), as GET …/result/{datasource}/{table} downloads it. */
export class ResultPartDto implements ResultPart {
  @ApiProperty({ example: 'pg_source' }) datasource!: string;
  @ApiProperty({ example: 'accounting.invoices', description: 'The result key (URL-encode it in the part route).' }) table!: string;
  @ApiProperty({ example: 'external-data/0190f3c2-0000-7000-8000-000000000000/pg_source/accounting.invoices.csv.gz' }) path!: string;
  @ApiProperty({ enum: OUTPUT_FORMATS, example: 'csv' }) format!: OutputFormat;
  @ApiProperty({ enum: OUTPUT_COMPRESSIONS, example: 'gzip' }) compression!: OutputCompression;
  @ApiProperty({ example: 1234, description: 'Bytes of the part file as downloaded (after compression, before encryption).' })
  sizeBytes!: number;
  @ApiProperty({ example: 2 }) rowCount!: number;
  @ApiProperty({ example: PART_EXAMPLE_SHA256, description: 'SHA-256 (hex) of the part file as downloaded.' }) sha256!: string;
  @ApiPropertyOptional({ description: 'HMAC-SHA256 (hex) of the part file as downloaded (the result HMAC key).' }) hmac?: string;
}

export class JobResultSummaryDto {
  @ApiProperty({
    example: 5123,
    description: 'Plaintext bytes of the object at resultPath: the result (compressed when asked), or a per-table result’s manifest.',
  })
  sizeBytes!: number;
  @ApiProperty({ example: 42 }) rowCount!: number;
  @ApiProperty({ description: 'SHA-256 (hex) of the plaintext.' }) sha256!: string;
  @ApiProperty({ ...ROW_COUNTS_SCHEMA, example: { pg_source: { accounts: 3, 'accounting.invoices': 2 } } })
  rowCounts!: Record<string, Record<string, number>>;
  @ApiPropertyOptional({ type: [ResultPartDto], description: 'Per-table results (csv, parquet): one part per table, in result order.' })
  parts?: ResultPartDto[];
}

export class JobErrorDto {
  @ApiProperty({ example: 'FET-1060' }) code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ type: [ErrorDetailDto] }) details?: ErrorDetailDto[];
}

export class TableProgressDto {
  @ApiProperty({ enum: ['pending', 'reading', 'done'], example: 'reading' }) status!: 'pending' | 'reading' | 'done';
  @ApiProperty({ example: 120000 }) rows!: number;
}

export class JobProgressDto {
  @ApiProperty({ example: 120000, description: 'Rows read from the datasources so far.' }) rowsRead!: number;
  @ApiProperty({ example: 23592960, description: 'Plaintext JSON bytes written to the result so far.' }) bytesWritten!: number;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiProperty({ format: 'date-time', description: 'Refreshed by the worker at most once a second.' }) updatedAt!: string;
  @ApiProperty({
    ...byDatasourceAndTable({ $ref: getSchemaPath('TableProgressDto') }),
    description: 'Per datasource config name, per table: its status and the rows read. On a completed job, the final counts.',
    example: { pg_source: { accounts: { status: 'done', rows: 3 }, 'accounting.invoices': { status: 'reading', rows: 1 } } },
  })
  tables!: Record<string, Record<string, TableProgressDto>>;
}

export class JobResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: JobStatus }) status!: JobStatus;
  @ApiProperty({ ...JOB_METADATA_SCHEMA, selfRequired: true, example: { source: 'reporter' } }) metadata!: Record<string, unknown>;
  @ApiProperty(MAPPED_FIELDS_SCHEMA) mappedFields!: Record<string, Record<string, string[]>>;
  @ApiPropertyOptional(FILTERS_SCHEMA) filters?: Record<string, unknown>;
  @ApiProperty({ type: JobOutputDto, description: 'What the result is written as; {"format":"json","compression":"none"} unless asked.' })
  output!: JobOutputDto;
  @ApiProperty({ description: 'SHA-256 of the canonical request, used for deduplication.' }) requestHash!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) startedAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) completedAt?: string;
  @ApiPropertyOptional({ example: 'external-data/0190f3c2-0000-7000-8000-000000000000.json' }) resultPath?: string;
  @ApiPropertyOptional({ description: 'HMAC-SHA256 (hex) of the plaintext result.' }) resultHmac?: string;
  @ApiPropertyOptional({
    example: '1',
    description: "APP_ENC_KEY_VERSION of the master key the result was sealed with: open it with that version's derived keys.",
  })
  resultKeyVersion?: string;
  @ApiPropertyOptional({ type: JobResultSummaryDto }) result?: JobResultSummaryDto;
  @ApiPropertyOptional({ type: JobErrorDto }) error?: JobErrorDto;
  @ApiPropertyOptional({ type: JobProgressDto, description: 'While processing, and on a completed job (its final per-table counts).' })
  progress?: JobProgressDto;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the result was deleted (DELETE …/result or retention); GET …/result answers 410.',
  })
  resultDeletedAt?: string;
  @ApiPropertyOptional({
    type: JobIncrementalDto,
    description: 'A job of an incremental stream: the ranges it reads, then read (docs/incremental.md).',
  })
  incremental?: JobIncrementalDto;

  static from(job: JobRecord): JobResponseDto {
    const dto: JobResponseDto = {
      id: job.id,
      status: job.status,
      metadata: job.metadata,
      mappedFields: job.mappedFields,
      output: outputOf(job),
      requestHash: job.requestHash,
      createdAt: job.createdAt.toISOString(),
    };
    if (job.filters) dto.filters = job.filters;
    if (job.startedAt) dto.startedAt = job.startedAt.toISOString();
    if (job.completedAt) dto.completedAt = job.completedAt.toISOString();
    if (job.resultPath) dto.resultPath = job.resultPath;
    if (job.resultHmac) dto.resultHmac = job.resultHmac;
    if (job.resultKeyVersion) dto.resultKeyVersion = job.resultKeyVersion;
    if (job.status === JobStatus.Completed && job.resultSha256) {
      dto.result = {
        sizeBytes: job.resultSizeBytes ?? 0,
        rowCount: job.resultRowCount ?? 0,
        sha256: job.resultSha256,
        rowCounts: job.resultRowCounts ?? {},
      };
      if (job.resultParts) dto.result.parts = job.resultParts;
    }
    if (job.error) dto.error = job.error;
    if (job.progress) dto.progress = job.progress;
    const deletedAt = job.resultDeleteRequestedAt ?? job.resultDeletedAt;
    if (deletedAt) dto.resultDeletedAt = deletedAt.toISOString();
    if (job.incremental) dto.incremental = JobIncrementalDto.from(job.incremental);
    return dto;
  }
}
