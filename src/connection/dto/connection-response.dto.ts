import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { PageOf } from '../../common/http/page.dto.js';
import { DatasourceType } from '../../engine/connectors/datasource-type.js';
import type { InternalDatasourceConfig } from '../../config/internal-datasources.config.js';
import type { ConnectionRecord } from '../../datasource/connection.entity.js';
import { WALKTHROUGH_CONNECTION } from './create-connection.dto.js';

/** Internal datasources have no creation time; they sort as the oldest connections. */
export const INTERNAL_CREATED_AT = new Date(0);

/** What a response shows of a stored connection; an internal datasource is shown as one. */
type ConnectionFacts = Pick<
  ConnectionRecord,
  | 'id'
  | 'productName'
  | 'configName'
  | 'type'
  | 'host'
  | 'port'
  | 'databaseName'
  | 'schemaName'
  | 'userName'
  | 'sslMode'
  | 'metadata'
  | 'createdAt'
  | 'updatedAt'
>;

/** What POST /v1/management/connections answers for the README walkthrough's connection. */
const { password: _walkthroughPassword, ...walkthroughStored } = WALKTHROUGH_CONNECTION;
export const WALKTHROUGH_CONNECTION_RESPONSE = {
  id: '0190f3c2-0000-7000-8000-000000000001',
  productName: 'reporter',
  ...walkthroughStored,
  hasPassword: true,
  createdAt: '2026-07-13T09:00:00.000Z',
  updatedAt: '2026-07-13T09:00:00.000Z',
};

export class SslModeDto {
  @ApiProperty({ example: 'require' })
  mode!: string;
}

export class ConnectionResponseDto {
  @ApiProperty({ format: 'uuid', example: WALKTHROUGH_CONNECTION_RESPONSE.id }) id!: string;
  @ApiPropertyOptional({ example: 'reporter' }) productName?: string;
  @ApiProperty({ example: 'pg_source' }) configName!: string;
  @ApiProperty({ enum: DatasourceType, example: DatasourceType.PostgreSQL }) type!: DatasourceType;
  @ApiProperty({ example: '127.0.0.1' }) host!: string;
  @ApiProperty({ example: 5432 }) port!: number;
  @ApiProperty({ example: 'source' }) databaseName!: string;
  @ApiPropertyOptional({ example: 'public' }) schema?: string;
  @ApiProperty({ example: 'postgres' }) userName!: string;
  @ApiProperty({ example: true, description: 'The password itself is never returned.' }) hasPassword!: boolean;
  @ApiPropertyOptional({ type: SslModeDto, description: 'Only the mode; CA, certificate and key are never returned.' })
  ssl?: SslModeDto;
  @ApiPropertyOptional({ example: { team: 'finance' } }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ example: true, description: 'Declared by DATASOURCE_<NAME>_* variables: read-only, no product.' })
  internal?: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;

  static from(record: ConnectionRecord): ConnectionResponseDto {
    return ConnectionResponseDto.of(record, record.passwordEncrypted.length > 0);
  }

  static fromInternal(datasource: InternalDatasourceConfig): ConnectionResponseDto {
    const facts = {
      ...datasource,
      productName: null,
      sslMode: datasource.ssl.mode,
      metadata: { ...datasource.metadata },
      createdAt: INTERNAL_CREATED_AT,
      updatedAt: INTERNAL_CREATED_AT,
    };
    return ConnectionResponseDto.of(facts, datasource.password.length > 0, true);
  }

  private static of(facts: ConnectionFacts, hasPassword: boolean, internal?: true): ConnectionResponseDto {
    const dto = new ConnectionResponseDto();
    dto.id = facts.id;
    if (facts.productName) dto.productName = facts.productName;
    dto.configName = facts.configName;
    dto.type = facts.type;
    dto.host = facts.host;
    dto.port = facts.port;
    dto.databaseName = facts.databaseName;
    if (facts.schemaName) dto.schema = facts.schemaName;
    dto.userName = facts.userName;
    dto.hasPassword = hasPassword;
    if (facts.sslMode) dto.ssl = { mode: facts.sslMode };
    if (facts.metadata && Object.keys(facts.metadata).length > 0) dto.metadata = facts.metadata;
    if (internal) dto.internal = true;
    dto.createdAt = facts.createdAt.toISOString();
    dto.updatedAt = facts.updatedAt.toISOString();
    return dto;
  }
}

export class ConnectionPageDto extends PageOf(ConnectionResponseDto, {
  example: 37,
  description: 'Number of connections matching the filters.',
}) {}
