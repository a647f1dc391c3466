import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, ValidateBy, ValidateNested } from 'class-validator';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import { FILTERS_SCHEMA, JOB_METADATA_SCHEMA, MAPPED_FIELDS_SCHEMA } from '../../common/http/json-shapes.js';
import {
  OUTPUT_COMPRESSIONS,
  OUTPUT_FORMATS,
  outputProblems,
  type OutputCompression,
  type OutputFormat,
  type ResultOutput,
} from '../../engine/formats/output-format.js';
import type { DataRequestLimits, Filters, MappedFields } from '../../engine/request/data-request.js';
import { MAX_LAG_SECONDS, MAX_STREAM_NAME_LENGTH, type IncrementalRequest } from '../../engine/request/incremental-request.js';

/**
 * The README walkthrough's job (its connection pg_source and the fixture docker/fixtures/postgres/init.sql),
 * the body Swagger UI pre-fills: it runs as it is against that walkthrough.
 */
const WALKTHROUGH_MAPPED_FIELDS = { pg_source: { accounts: ['id', 'email', 'balance'], 'accounting.invoices': ['*'] } };
const WALKTHROUGH_FILTERS = { pg_source: { accounts: { created_at: { gte: ['2026-01-03'] } } } };

/** Named request-body examples of POST /v1/fetcher; the first is the one Swagger UI pre-fills. */
export const CREATE_JOB_EXAMPLES = {
  walkthrough: {
    summary: 'The README walkthrough: two tables in two schemas',
    value: { dataRequest: { mappedFields: WALKTHROUGH_MAPPED_FIELDS }, metadata: { source: 'reporter', correlationId: 'walkthrough' } },
  },
  filtered: {
    summary: 'Filtered, with lower limits for this job',
    value: {
      dataRequest: {
        mappedFields: { pg_source: { accounts: ['id', 'email', 'balance'] } },
        filters: WALKTHROUGH_FILTERS,
        limits: { timeoutMs: 60000, maxResultBytes: 1048576 },
      },
      metadata: { source: 'reporter', correlationId: 'walkthrough-filtered' },
    },
  },
  incremental: {
    summary: 'Incremental: only the invoices added since the stream’s previous job',
    value: {
      dataRequest: {
        mappedFields: { pg_source: { 'accounting.invoices': ['*'] } },
        incremental: { stream: 'invoices', cursors: { pg_source: { 'accounting.invoices': 'id' } } },
      },
      metadata: { source: 'reporter', correlationId: 'walkthrough-incremental' },
    },
  },
};

/**
 * `dataRequest.incremental` as the API document shows it. The member itself is kept as parsed and
 * checked by the data-request validator (FET-0401 naming the member), like mappedFields.
 */
export class IncrementalDto implements IncrementalRequest {
  @ApiProperty({
    example: 'invoices',
    maxLength: MAX_STREAM_NAME_LENGTH,
    description: 'The stream, one per product by this name: its marks say where each cursor table stands (GET /v1/fetcher/streams/{name}).',
  })
  stream!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
    example: { pg_source: { 'accounting.invoices': 'id' } },
    description:
      'cursors[configName][table] = column, the table spelled as in mappedFields: an integer, decimal, date or timestamp column. ' +
      'Each such table is read only above its mark; the others in full.',
  })
  cursors!: Record<string, Record<string, string>>;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_LAG_SECONDS,
    example: 60,
    description: 'Date and timestamp cursors only: read up to the column’s maximum minus this many seconds (late commits).',
  })
  lagSeconds?: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
    example: { pg_source: { 'accounting.invoices': 100 } },
    description: 'initial[configName][table]: where a table starts, inclusive, while the stream has no mark of it.',
  })
  initial?: Record<string, Record<string, string | number>>;
}

/** Range and ceiling checks live in the data-request validator, which names each offending limit. */
export class LimitsDto implements DataRequestLimits {
  @ApiPropertyOptional({ example: 10, description: 'At most 10.' }) @IsOptional() maxDatasources?: number;
  @ApiPropertyOptional({ example: 20, description: 'At most 20.' }) @IsOptional() maxTablesPerDatasource?: number;
  @ApiPropertyOptional({ example: 50, description: 'At most 50.' }) @IsOptional() maxFieldsPerTable?: number;
  @ApiPropertyOptional({ example: 4, description: 'At most 4.' }) @IsOptional() maxParallelDatasources?: number;
  @ApiPropertyOptional({ example: 60000, description: 'At most 300000 (5 minutes).' }) @IsOptional() timeoutMs?: number;
  @ApiPropertyOptional({ example: 1048576, description: 'At most the worker ceiling (256 MiB by default).' })
  @IsOptional()
  maxResultBytes?: number;
}

export class DataRequestDto {
  @ApiProperty({
    ...MAPPED_FIELDS_SCHEMA,
    example: WALKTHROUGH_MAPPED_FIELDS,
    description: 'mappedFields[configName][table] = [field, …]; ["*"] selects every column.',
  })
  @IsDefined()
  @IsObject()
  @RawJson()
  mappedFields!: MappedFields;

  @ApiPropertyOptional({
    ...FILTERS_SCHEMA,
    example: WALKTHROUGH_FILTERS,
    description:
      'filters[configName][table][field] = {operator: [values…]} with eq, gt, gte, lt, lte, between, in, nin, ne, like; at most 10,000 values per operator.',
  })
  @IsOptional()
  @IsObject()
  @RawJson()
  filters?: Filters;

  @ApiPropertyOptional({ type: LimitsDto, description: 'Lower any engine limit for this job.' })
  // IsObject: ValidateNested alone lets an array through, validating each element.
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LimitsDto)
  limits?: LimitsDto;

  @ApiPropertyOptional({
    type: IncrementalDto,
    nullable: true,
    description:
      'An incremental stream (docs/incremental.md): at most one job of a stream is pending or processing (409 FET-1111 otherwise).',
  })
  @IsOptional()
  @RawJson()
  incremental?: IncrementalRequest | null;
}

/**
 * One member of `output`, checked by outputProblems itself, so the API and the engine refuse the same
 * values with the same words. The message starts with the member's name, which the validation
 * factory turns into its path (`output.format`).
 */
function OutputMember(member: keyof ResultOutput): PropertyDecorator {
  const problem = (value: unknown) => outputProblems({ [member]: value })?.[`output.${member}`];
  return ValidateBy({
    name: 'outputMember',
    validator: {
      validate: (value: unknown) => problem(value) === undefined,
      defaultMessage: (args) => `${member} ${problem(args?.value) ?? 'is invalid'}`,
    },
  });
}

export class OutputDto implements Partial<ResultOutput> {
  @ApiPropertyOptional({
    enum: OUTPUT_FORMATS,
    default: 'json',
    description: 'json and ndjson: one object, as resultPath; csv and parquet: one part per table (result.parts), listed by a manifest.',
  })
  @OutputMember('format')
  format?: OutputFormat;

  @ApiPropertyOptional({
    enum: OUTPUT_COMPRESSIONS,
    default: 'none',
    description: 'Applied before sealing; the digests are of the compressed bytes.',
  })
  @OutputMember('compression')
  compression?: OutputCompression;
}

export class CreateJobDto {
  @ApiProperty({ type: DataRequestDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => DataRequestDto)
  dataRequest!: DataRequestDto;

  @ApiPropertyOptional({
    type: OutputDto,
    nullable: true,
    description: 'What the result is written as; absent (or null): {"format":"json","compression":"none"}, the one JSON document.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => OutputDto)
  output?: OutputDto | null;

  @ApiProperty({
    ...JOB_METADATA_SCHEMA,
    selfRequired: true,
    example: { source: 'reporter', correlationId: 'walkthrough' },
    description: 'Free-form, with a required `source`: the product that owns the job.',
  })
  @IsDefined()
  @IsObject()
  @RawJson()
  metadata!: Record<string, unknown>;
}
