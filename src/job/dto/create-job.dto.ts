import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import type { DataRequestLimits, Filters, MappedFields } from '../../request/data-request.js';

/** Range and ceiling checks live in the data-request validator, which names each offending limit. */
export class LimitsDto implements DataRequestLimits {
  @ApiPropertyOptional({ example: 10, description: 'At most 10.' }) @IsOptional() maxDatasources?: number;
  @ApiPropertyOptional({ example: 20, description: 'At most 20.' }) @IsOptional() maxTablesPerDatasource?: number;
  @ApiPropertyOptional({ example: 50, description: 'At most 50.' }) @IsOptional() maxFieldsPerTable?: number;
  @ApiPropertyOptional({ example: 4, description: 'At most 4.' }) @IsOptional() maxParallelDatasources?: number;
  @ApiPropertyOptional({ example: 300000, description: 'At most 300000 (5 minutes).' }) @IsOptional() timeoutMs?: number;
  @ApiPropertyOptional({ example: 268435456, description: 'At most the worker ceiling (256 MiB by default).' })
  @IsOptional()
  maxResultBytes?: number;
}

export class DataRequestDto {
  @ApiProperty({
    example: { pg_main: { 'public.accounts': ['id', 'email'], 'accounting.invoices': ['*'] } },
    description: 'mappedFields[configName][table] = [field, …]; ["*"] selects every column.',
  })
  @IsDefined()
  @IsObject()
  @RawJson()
  mappedFields!: MappedFields;

  @ApiPropertyOptional({
    example: { pg_main: { 'public.accounts': { created_at: { gte: ['2026-01-01'] } } } },
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
}

export class CreateJobDto {
  @ApiProperty({ type: DataRequestDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => DataRequestDto)
  dataRequest!: DataRequestDto;

  @ApiProperty({
    example: { source: 'reporter', correlationId: 'settlement-2026-07-13' },
    description: 'Free-form, with a required `source`: the product that owns the job.',
  })
  @IsDefined()
  @IsObject()
  @RawJson()
  metadata!: Record<string, unknown>;
}
