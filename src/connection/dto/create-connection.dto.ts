import { ApiProperty, ApiPropertyOptional } from '../../common/http/api-docs.js';
import { Type } from 'class-transformer';
import {
  IsDefined,
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
  ValidateNested,
} from 'class-validator';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import { DATASOURCE_TYPES, DatasourceType } from '../../datasource/datasource-type.js';

export const CONFIG_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._:-]+)$/;

export class SslOptionsDto {
  @ApiPropertyOptional({ example: 'require', description: 'Engine-specific SSL mode (see the connection guide).' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  mode?: string;

  @ApiPropertyOptional({ description: 'PEM CA certificate used to verify the server. Encrypted at rest, never returned.' })
  @IsOptional()
  @IsString()
  @MaxLength(65536)
  ca?: string;

  @ApiPropertyOptional({ description: 'PEM client certificate. Encrypted at rest, never returned.' })
  @IsOptional()
  @IsString()
  @MaxLength(65536)
  cert?: string;

  @ApiPropertyOptional({ description: 'PEM client private key. Encrypted at rest, never returned.' })
  @IsOptional()
  @IsString()
  @MaxLength(65536)
  key?: string;
}

export class CreateConnectionDto {
  @ApiProperty({ example: 'pg_main', description: '3–100 characters of [A-Za-z0-9_-], unique among live connections.' })
  @IsDefined()
  @IsString()
  @Length(3, 100, { message: 'configName must be between 3 and 100 characters' })
  @Matches(CONFIG_NAME_PATTERN, { message: 'configName can only contain alphanumeric characters, underscores, and hyphens' })
  configName!: string;

  @ApiProperty({ enum: DatasourceType, example: DatasourceType.PostgreSQL })
  @IsDefined()
  @IsIn(DATASOURCE_TYPES, { message: `type must be one of ${DATASOURCE_TYPES.join(', ')}` })
  type!: DatasourceType;

  @ApiProperty({ example: 'db.example.com' })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @Matches(HOST_PATTERN, { message: 'host must be a hostname or an IP address' })
  host!: string;

  @ApiProperty({ example: 5432, minimum: 1, maximum: 65535 })
  @IsDefined()
  @IsInt({ message: 'port must be an integer' })
  @Min(1, { message: 'port must be between 1 and 65535' })
  @Max(65535, { message: 'port must be between 1 and 65535' })
  port!: number;

  @ApiProperty({ example: 'ledger' })
  @IsDefined()
  @IsString()
  @MinLength(1, { message: 'databaseName must not be empty' })
  @MaxLength(255)
  databaseName!: string;

  @ApiPropertyOptional({ example: 'public', description: 'Default schema for unqualified table names.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  schema?: string;

  @ApiProperty({ example: 'reporter' })
  @IsDefined()
  @IsString()
  @MinLength(1, { message: 'userName must not be empty' })
  @MaxLength(255)
  userName!: string;

  @ApiProperty({ example: 's3cret', description: 'Encrypted at rest; never returned.' })
  @IsDefined()
  @IsString()
  @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional({ type: SslOptionsDto })
  // IsObject: ValidateNested alone lets an array through, validating each element.
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SslOptionsDto)
  ssl?: SslOptionsDto;

  @ApiPropertyOptional({
    example: { team: 'finance' },
    description: 'Free-form. Oracle needs serviceName; MongoDB reads authSource (it is always connected directly to the host given).',
  })
  @IsOptional()
  @IsObject()
  @RawJson()
  metadata?: Record<string, unknown>;
}
