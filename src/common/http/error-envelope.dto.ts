import { ApiProperty, ApiPropertyOptional } from './api-docs.js';
import { FIELD_PROBLEMS_SCHEMA } from './json-shapes.js';

/** Every detail `type` an answer or a job failure carries (docs/api.md, "Detail types"). */
export const ERROR_DETAIL_TYPES = [
  'invalid_shape',
  'invalid_limit',
  'invalid_filter',
  'limit_exceeded',
  'datasource_not_found',
  'ambiguous_datasource',
  'not_assigned',
  'product_mismatch',
  'connection_down',
  'password_required',
  'table_not_found',
  'field_not_found',
  'value_not_representable',
  'datasource_unavailable',
  'query_failed',
  'part_not_found',
  'invalid_incremental',
  'cursor_not_found',
  'cursor_type_refused',
  'lag_not_allowed',
  'cursor_mismatch',
  'cursor_unsupported',
  'invalid_initial',
] as const;

export class ErrorDetailDto {
  @ApiProperty({ enum: ERROR_DETAIL_TYPES, example: 'field_not_found', description: 'See docs/api.md, "Detail types".' }) type!: string;
  @ApiPropertyOptional({ example: 'pg_source' }) datasource?: string;
  @ApiPropertyOptional({ example: 'accounts' }) table?: string;
  @ApiPropertyOptional({ example: 'emial' }) field?: string;
  @ApiPropertyOptional({ example: 'gt' }) operator?: string;
  @ApiPropertyOptional({ example: 'auth_failed', description: 'connection_down, datasource_unavailable: why the connect failed.' })
  reason?: string;
  @ApiPropertyOptional() message?: string;
}

/** The FET envelope every error answers with (src/common/errors/fet-exception.filter.ts); each route shows its own codes as examples. */
export class ErrorEnvelopeDto {
  @ApiProperty({ example: 'FET-0402', description: 'The FET code; src/common/errors/fet-code.ts is the catalogue.' }) code!: string;
  @ApiProperty({ example: 'Missing Fields in Request', description: 'The catalogue’s title of the code.' }) title!: string;
  @ApiProperty({ example: 'metadata.source is required for job notification routing' }) message!: string;
  @ApiPropertyOptional({
    ...FIELD_PROBLEMS_SCHEMA,
    example: { 'metadata.source': 'metadata.source is a required field' },
    description: 'JSON path → what is wrong with it; only when not empty.',
  })
  fields?: Record<string, string>;
  @ApiPropertyOptional({ type: [ErrorDetailDto], description: 'Every offender; only when not empty.' }) details?: ErrorDetailDto[];
  @ApiPropertyOptional({
    example: 'auth_failed',
    description:
      'FET-1041/1042/1043: auth_failed, unreachable, timeout, tls, database_not_found, plaintext_password_refused or unknown; ' +
      'too_large when the schema catalog exceeded maxBytes.',
  })
  reason?: string;
  @ApiPropertyOptional({ example: 42, description: 'FET-1070: as the Retry-After header.' }) retryAfterSeconds?: number;
  @ApiPropertyOptional({
    format: 'uuid',
    example: '0190f3c2-0000-7000-8000-000000000000',
    description: 'FET-1111: the stream’s pending or processing job, to wait for or cancel.',
  })
  jobId?: string;
  @ApiPropertyOptional({ example: 8388608, description: 'With reason too_large: the schema catalog bound, in bytes.' }) maxBytes?: number;
}
