import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { PageOf } from '../../common/http/page.dto.js';
import type { JobRecord } from '../job.entity.js';
import { isDefaultOutput, outputOf } from '../job-output.js';
import { JobStatus } from '../job-status.js';
import { JobOutputDto, ResultPartDto } from './job-response.dto.js';

/** The columns a summary is made of; the list reads only these. */
export type JobSummarySource = Pick<
  JobRecord,
  | 'id'
  | 'status'
  | 'productName'
  | 'mappedFields'
  | 'createdAt'
  | 'startedAt'
  | 'completedAt'
  | 'resultSha256'
  | 'resultSizeBytes'
  | 'resultRowCount'
  | 'output'
  | 'resultParts'
  | 'error'
  | 'progress'
  | 'resultDeleteRequestedAt'
  | 'resultDeletedAt'
>;

export class JobRequestCountsDto {
  @ApiProperty({ example: 2 }) datasources!: number;
  @ApiProperty({ example: 3, description: 'Tables over every datasource.' }) tables!: number;
  @ApiProperty({ example: 11, description: 'Requested field names over every table; a `*` counts as one.' }) fields!: number;
}

export class JobSummaryResultDto {
  @ApiProperty({ example: 5123, description: 'Plaintext JSON bytes.' }) sizeBytes!: number;
  @ApiProperty({ example: 42 }) rowCount!: number;
  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 (hex) of the plaintext.',
  })
  sha256!: string;
  @ApiPropertyOptional({ type: [ResultPartDto], description: 'Per-table results (csv, parquet): one part per table, in result order.' })
  parts?: ResultPartDto[];
}

export class JobSummaryErrorDto {
  @ApiProperty({ example: 'FET-1060' }) code!: string;
  @ApiProperty({ example: "Field 'emial' does not exist in table 'accounts'" }) message!: string;
}

export class JobSummaryProgressDto {
  @ApiProperty({ example: 12000 }) rowsRead!: number;
  @ApiProperty({ example: 1048576, description: 'Plaintext JSON bytes written so far.' }) bytesWritten!: number;
  @ApiProperty({ format: 'date-time', description: 'When the worker last reported.' }) updatedAt!: string;
}

/** One job of a list: what it is and how it went, without its request (GET /v1/fetcher/{id} has that). */
export class JobSummaryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: JobStatus, example: JobStatus.Completed }) status!: JobStatus;
  @ApiPropertyOptional({ example: 'reporter', description: 'metadata.source, lower-cased: the product that owns the job.' })
  source?: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) startedAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) completedAt?: string;
  @ApiProperty({ type: JobRequestCountsDto, description: 'Size of mappedFields.' }) counts!: JobRequestCountsDto;
  @ApiPropertyOptional({ type: JobOutputDto, description: 'Only when not the default (json, none).' }) output?: JobOutputDto;
  @ApiPropertyOptional({ type: JobSummaryResultDto, description: 'Completed jobs.' }) result?: JobSummaryResultDto;
  @ApiPropertyOptional({ type: JobSummaryErrorDto, description: 'Failed jobs; the details are on GET /v1/fetcher/{id}.' })
  error?: JobSummaryErrorDto;
  @ApiPropertyOptional({ example: true, description: 'Present when the result was deleted or its deletion was asked for.' })
  resultDeleted?: true;
  @ApiPropertyOptional({ type: JobSummaryProgressDto, description: 'Processing jobs, once the worker reported.' })
  progress?: JobSummaryProgressDto;

  static from(job: JobSummarySource): JobSummaryDto {
    const dto: JobSummaryDto = {
      id: job.id,
      status: job.status,
      createdAt: job.createdAt.toISOString(),
      counts: countsOf(job.mappedFields),
    };
    if (job.productName) dto.source = job.productName;
    if (job.startedAt) dto.startedAt = job.startedAt.toISOString();
    if (job.completedAt) dto.completedAt = job.completedAt.toISOString();
    const output = outputOf(job);
    if (!isDefaultOutput(output)) dto.output = output;
    if (job.status === JobStatus.Completed && job.resultSha256) {
      dto.result = { sizeBytes: job.resultSizeBytes ?? 0, rowCount: job.resultRowCount ?? 0, sha256: job.resultSha256 };
      if (job.resultParts) dto.result.parts = job.resultParts;
    }
    if (job.status === JobStatus.Failed && job.error) dto.error = { code: job.error.code, message: job.error.message };
    if (job.resultDeleteRequestedAt || job.resultDeletedAt) dto.resultDeleted = true;
    const progress = job.progress;
    // The worker writes progress as it goes; a row from before progress existed has none.
    if (
      job.status === JobStatus.Processing &&
      progress &&
      typeof progress.rowsRead === 'number' &&
      typeof progress.bytesWritten === 'number'
    ) {
      dto.progress = { rowsRead: progress.rowsRead, bytesWritten: progress.bytesWritten, updatedAt: progress.updatedAt };
    }
    return dto;
  }
}

export class JobPageDto extends PageOf(JobSummaryDto, {
  example: 37,
  description: 'Number of jobs matching the filters (and visible to the credential).',
}) {}

function countsOf(mappedFields: JobRecord['mappedFields']): JobRequestCountsDto {
  const tables = Object.values(mappedFields ?? {}).flatMap((byTable) => Object.values(byTable ?? {}));
  return {
    datasources: Object.keys(mappedFields ?? {}).length,
    tables: tables.length,
    fields: tables.reduce((sum, fields) => sum + (Array.isArray(fields) ? fields.length : 0), 0),
  };
}
