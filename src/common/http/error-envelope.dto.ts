import { ApiProperty, ApiPropertyOptional } from './api-docs.js';

export class ErrorDetailDto {
  @ApiProperty({ example: 'field_not_found' }) type!: string;
  @ApiPropertyOptional({ example: 'pg_main' }) datasource?: string;
  @ApiPropertyOptional({ example: 'accounts' }) table?: string;
  @ApiPropertyOptional({ example: 'emial' }) field?: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ example: 'FET-0401' }) code!: string;
  @ApiProperty({ example: 'Invalid Data Request' }) title!: string;
  @ApiProperty({ example: 'mappedFields cannot be empty' }) message!: string;
  @ApiPropertyOptional({ example: { 'metadata.source': 'metadata.source is a required field' } })
  fields?: Record<string, string>;
  @ApiPropertyOptional({ type: [ErrorDetailDto] }) details?: ErrorDetailDto[];
}
