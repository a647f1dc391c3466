import { ApiProperty, ApiPropertyOptional } from '../../../common/http/api-docs.js';
import type { ApiKeyRecord } from '../api-key.entity.js';

/** An API key as listed: never any key material. */
export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'reporter' }) productName!: string;
  @ApiProperty({ example: 'reporting-service production' }) name!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ example: 'admin-key:1', description: 'The principal that created it.' }) createdBy?: string;

  static from(record: ApiKeyRecord): ApiKeyDto {
    return {
      id: record.id,
      productName: record.productName,
      name: record.name,
      createdAt: record.createdAt.toISOString(),
      ...(record.createdBy ? { createdBy: record.createdBy } : {}),
    };
  }
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({
    example: 'fet_3q2-7wE…',
    description: 'Shown once, here; only its hash is stored. Send it as Authorization: Bearer <key>.',
  })
  key!: string;
}

export class ApiKeyPageDto {
  @ApiProperty({ type: [ApiKeyDto] }) items!: ApiKeyDto[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 10 }) limit!: number;
  @ApiProperty({ example: 3, description: 'Active keys matching the filter.' }) total!: number;
}
