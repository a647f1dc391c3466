import { MAPPED_FIELDS_SCHEMA } from '../../common/http/json-shapes.js';
import { ApiProperty } from '../../common/http/api-docs.js';
import { IsDefined, IsObject } from 'class-validator';
import { RawJson } from '../../common/http/raw-json.decorator.js';
import { DatasourceType } from '../../engine/connectors/datasource-type.js';
import type { MappedFields } from '../../engine/request/data-request.js';

export class SchemaTableDto {
  @ApiProperty({ example: 'accounting.invoices', description: 'Default-schema tables unqualified, others schema.table.' })
  name!: string;
  @ApiProperty({ example: ['id', 'account_id', 'amount'], description: 'In column order.' })
  fields!: string[];
}

export class ConnectionSchemaDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'pg_source' }) configName!: string;
  @ApiProperty({ example: 'source' }) databaseName!: string;
  @ApiProperty({ enum: DatasourceType }) type!: DatasourceType;
  @ApiProperty({ type: [SchemaTableDto], description: 'Sorted by name.' }) tables!: SchemaTableDto[];
}

export class ConnectionTestResultDto {
  @ApiProperty({ example: 'success' }) status!: 'success';
  @ApiProperty({ example: 'Connection successful' }) message!: string;
  @ApiProperty({ example: 12, description: 'Milliseconds to open the connection.' }) latencyMs!: number;
}

export class ValidateSchemaDto {
  @ApiProperty({ ...MAPPED_FIELDS_SCHEMA, example: { pg_source: { accounts: ['id', 'email', 'balance'], 'accounting.invoices': ['*'] } } })
  @IsDefined()
  @IsObject()
  @RawJson()
  mappedFields!: MappedFields;
}

export class SchemaValidationSuccessDto {
  @ApiProperty({ example: 'success' }) status!: 'success';
  @ApiProperty({ example: 'Schema validated successfully. All datasources, tables, and fields exist.' }) message!: string;
}
