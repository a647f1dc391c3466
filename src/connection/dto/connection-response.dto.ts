import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { DatasourceType } from '../../datasource/datasource-type.js';
import type { InternalDatasourceConfig } from '../../config/internal-datasources.config.js';
import type { ConnectionRecord } from '../../datasource/connection.entity.js';

/** Internal datasources have no creation time; they sort as the oldest connections. */
export const INTERNAL_CREATED_AT = new Date(0);

export class SslModeDto {
  @ApiProperty({ example: 'require' })
  mode!: string;
}

export class ConnectionResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiPropertyOptional({ example: 'reporter' }) productName?: string;
  @ApiProperty({ example: 'pg_main' }) configName!: string;
  @ApiProperty({ enum: DatasourceType }) type!: DatasourceType;
  @ApiProperty({ example: 'db.example.com' }) host!: string;
  @ApiProperty({ example: 5432 }) port!: number;
  @ApiProperty({ example: 'ledger' }) databaseName!: string;
  @ApiPropertyOptional({ example: 'public' }) schema?: string;
  @ApiProperty({ example: 'reporter' }) userName!: string;
  @ApiProperty({ example: true, description: 'The password itself is never returned.' }) hasPassword!: boolean;
  @ApiPropertyOptional({ type: SslModeDto, description: 'Only the mode; CA, certificate and key are never returned.' })
  ssl?: SslModeDto;
  @ApiPropertyOptional({ example: { team: 'finance' } }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ example: true, description: 'Declared by DATASOURCE_<NAME>_* variables: read-only, no product.' })
  internal?: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;

  static from(record: ConnectionRecord): ConnectionResponseDto {
    const dto = new ConnectionResponseDto();
    dto.id = record.id;
    if (record.productName) dto.productName = record.productName;
    dto.configName = record.configName;
    dto.type = record.type;
    dto.host = record.host;
    dto.port = record.port;
    dto.databaseName = record.databaseName;
    if (record.schemaName) dto.schema = record.schemaName;
    dto.userName = record.userName;
    dto.hasPassword = record.passwordEncrypted.length > 0;
    if (record.sslMode) dto.ssl = { mode: record.sslMode };
    if (record.metadata && Object.keys(record.metadata).length > 0) dto.metadata = record.metadata;
    dto.createdAt = record.createdAt.toISOString();
    dto.updatedAt = record.updatedAt.toISOString();
    return dto;
  }

  static fromInternal(datasource: InternalDatasourceConfig): ConnectionResponseDto {
    const dto = new ConnectionResponseDto();
    dto.id = datasource.id;
    dto.configName = datasource.configName;
    dto.type = datasource.type;
    dto.host = datasource.host;
    dto.port = datasource.port;
    dto.databaseName = datasource.databaseName;
    if (datasource.schemaName) dto.schema = datasource.schemaName;
    dto.userName = datasource.userName;
    dto.hasPassword = datasource.password.length > 0;
    if (datasource.ssl.mode) dto.ssl = { mode: datasource.ssl.mode };
    if (Object.keys(datasource.metadata).length > 0) dto.metadata = { ...datasource.metadata };
    dto.internal = true;
    dto.createdAt = INTERNAL_CREATED_AT.toISOString();
    dto.updatedAt = INTERNAL_CREATED_AT.toISOString();
    return dto;
  }
}

export class ConnectionPageDto {
  @ApiProperty({ type: [ConnectionResponseDto] }) items!: ConnectionResponseDto[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 10 }) limit!: number;
  @ApiProperty({ example: 37, description: 'Number of connections matching the filters.' }) total!: number;
}
