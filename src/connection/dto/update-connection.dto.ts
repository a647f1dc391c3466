import { ApiPropertyOptional } from '../../common/http/api-docs.js';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import { DATASOURCE_TYPES, DatasourceType } from '../../datasource/datasource-type.js';
import { CONFIG_NAME_PATTERN, HOST_PATTERN, SslOptionsDto } from './create-connection.dto.js';

/**
 * PATCH body: every field optional; a field present replaces the stored one. `metadata` replaces
 * the whole object; `schema: null` and `metadata: null` clear them. `ssl` merges field by field
 * (`ca: null` removes the CA); `ssl: null` removes every SSL setting.
 */
export class UpdateConnectionDto {
  @ApiPropertyOptional({ example: 'pg_main' })
  @IsOptional()
  @IsString()
  @Length(3, 100, { message: 'configName must be between 3 and 100 characters' })
  @Matches(CONFIG_NAME_PATTERN, { message: 'configName can only contain alphanumeric characters, underscores, and hyphens' })
  configName?: string;

  @ApiPropertyOptional({ enum: DatasourceType })
  @IsOptional()
  @IsIn(DATASOURCE_TYPES, { message: `type must be one of ${DATASOURCE_TYPES.join(', ')}` })
  type?: DatasourceType;

  @ApiPropertyOptional({ example: 'db.example.com' })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'host must not be empty' })
  @MaxLength(255)
  @Matches(HOST_PATTERN, { message: 'host must be a hostname or an IP address' })
  host?: string;

  @ApiPropertyOptional({ example: 5432 })
  @IsOptional()
  @IsInt({ message: 'port must be an integer' })
  @Min(1, { message: 'port must be between 1 and 65535' })
  @Max(65535, { message: 'port must be between 1 and 65535' })
  port?: number;

  @ApiPropertyOptional({ example: 'ledger' })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'databaseName must not be empty' })
  @MaxLength(255)
  databaseName?: string;

  @ApiPropertyOptional({ example: 'public', nullable: true })
  @ValidateIf((dto: UpdateConnectionDto) => dto.schema !== null && dto.schema !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  schema?: string | null;

  @ApiPropertyOptional({ example: 'reporter' })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'userName must not be empty' })
  @MaxLength(255)
  userName?: string;

  @ApiPropertyOptional({ description: 'Re-encrypted at rest; never returned.' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ type: SslOptionsDto, nullable: true })
  @ValidateIf((dto: UpdateConnectionDto) => dto.ssl !== null && dto.ssl !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => SslPatchDto)
  ssl?: SslPatchDto | null;

  @ApiPropertyOptional({ example: { team: 'finance' }, nullable: true, description: 'Replaces the whole object.' })
  @ValidateIf((dto: UpdateConnectionDto) => dto.metadata !== null && dto.metadata !== undefined)
  @IsObject()
  @RawJson()
  metadata?: Record<string, unknown> | null;
}

/** Like SslOptionsDto, but each field may be null to remove it. */
export class SslPatchDto {
  @ValidateIf((dto: SslPatchDto) => dto.mode !== null && dto.mode !== undefined)
  @IsString()
  @MaxLength(32)
  mode?: string | null;

  @ValidateIf((dto: SslPatchDto) => dto.ca !== null && dto.ca !== undefined)
  @IsString()
  @MaxLength(65536)
  ca?: string | null;

  @ValidateIf((dto: SslPatchDto) => dto.cert !== null && dto.cert !== undefined)
  @IsString()
  @MaxLength(65536)
  cert?: string | null;

  @ValidateIf((dto: SslPatchDto) => dto.key !== null && dto.key !== undefined)
  @IsString()
  @MaxLength(65536)
  key?: string | null;
}
