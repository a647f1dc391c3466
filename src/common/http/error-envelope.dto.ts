import { ApiProperty, ApiPropertyOptional } from './api-docs.js';
import { FIELD_PROBLEMS_SCHEMA } from './json-shapes.js';

export class ErrorDetailDto {
  @ApiProperty({ example: 'field_not_found', description: 'See docs/api.md, "Detail types".' }) type!: string;
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
    description: 'FET-1041/1042/1043: auth_failed, unreachable, timeout, tls, database_not_found, plaintext_password_refused or unknown.',
  })
  reason?: string;
  @ApiPropertyOptional({ example: 42, description: 'FET-1070: as the Retry-After header.' }) retryAfterSeconds?: number;
}
