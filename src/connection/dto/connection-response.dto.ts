import { FREE_OBJECT_SCHEMA } from '../../common/http/json-shapes.js';
import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { PageOf } from '../../common/http/page.dto.js';
import { DatasourceType } from '../../engine/connectors/datasource-type.js';
import type { InternalDatasourceConfig } from '../../config/internal-datasources.config.js';
import type { ConnectionRecord } from '../../datasource/connection.entity.js';
import { ENDPOINT_CREDENTIALS, ENDPOINT_IDENTITY_FIELDS, IDENTITY_METADATA_TEXT, type IdentityChange } from '../endpoint-identity.js';
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

/** Which secrets are stored, never what they are. */
interface StoredSecrets {
  readonly password: boolean;
  readonly clientCertificate: boolean;
  readonly clientKey: boolean;
}

/** What POST /v1/management/connections answers for the README walkthrough's connection. */
const { password: _walkthroughPassword, ...walkthroughStored } = WALKTHROUGH_CONNECTION;
export const WALKTHROUGH_CONNECTION_RESPONSE = {
  id: '0190f3c2-0000-7000-8000-000000000001',
  productName: 'reporter',
  ...walkthroughStored,
  hasPassword: true,
  hasClientCertificate: false,
  hasClientKey: false,
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
  @ApiProperty({ example: false, description: 'A client certificate (ssl.cert) is stored; it is never returned.' })
  hasClientCertificate!: boolean;
  @ApiProperty({ example: false, description: 'A client private key (ssl.key) is stored; it is never returned.' })
  hasClientKey!: boolean;
  @ApiPropertyOptional({ type: SslModeDto, description: 'Only the mode; CA, certificate and key are never returned.' })
  ssl?: SslModeDto;
  @ApiPropertyOptional({ ...FREE_OBJECT_SCHEMA, example: { team: 'finance' } }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ example: true, description: 'Declared by DATASOURCE_<NAME>_* variables: read-only, no product.' })
  internal?: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({
    type: [String],
    example: ['host'],
    description: `Only in the answer to a PATCH that changed the endpoint's identity: the fields that did, among ${ENDPOINT_IDENTITY_FIELDS.join(', ')} and the engine's identity metadata (${IDENTITY_METADATA_TEXT}).`,
  })
  identityChanged?: string[];
  @ApiPropertyOptional({
    type: [String],
    enum: ENDPOINT_CREDENTIALS,
    example: ['password', 'ssl.cert', 'ssl.key'],
    description:
      'With identityChanged: the stored credentials this PATCH removed because the endpoint changed (those it replaced itself are kept). Empty when there were none to remove.',
  })
  clearedCredentials?: string[];

  /** `identity`: what the PATCH that produced `record` did to its endpoint identity. */
  static from(record: ConnectionRecord, identity: IdentityChange | null = null): ConnectionResponseDto {
    const dto = ConnectionResponseDto.of(record, {
      password: record.passwordEncrypted.length > 0,
      clientCertificate: record.sslCertEncrypted !== null,
      clientKey: record.sslKeyEncrypted !== null,
    });
    if (identity) {
      dto.identityChanged = [...identity.changed];
      dto.clearedCredentials = [...identity.cleared];
    }
    return dto;
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
    const stored = {
      password: datasource.password.length > 0,
      clientCertificate: Boolean(datasource.ssl.cert),
      clientKey: Boolean(datasource.ssl.key),
    };
    return ConnectionResponseDto.of(facts, stored, true);
  }

  private static of(facts: ConnectionFacts, stored: StoredSecrets, internal?: true): ConnectionResponseDto {
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
    dto.hasPassword = stored.password;
    dto.hasClientCertificate = stored.clientCertificate;
    dto.hasClientKey = stored.clientKey;
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
