import { OptionalField } from '../../common/http/body-field.decorator.js';
import { DatasourceType } from '../../datasource/datasource-type.js';
import * as Is from './connection-fields.decorator.js';
import { SslOptionsDto } from './create-connection.dto.js';

/**
 * PATCH body: every field optional; a field present replaces the stored one. `metadata` replaces
 * the whole object; `schema: null` and `metadata: null` clear them. `ssl` merges field by field
 * (`ca: null` removes the CA); `ssl: null` removes every SSL setting. An optional field lets null
 * through as it lets absence: the rules apply to a value given.
 */
export class UpdateConnectionDto {
  @OptionalField({ example: 'pg_main' }) @Is.ConfigName() configName?: string;
  @OptionalField({ enum: DatasourceType }) @Is.DatasourceType() type?: DatasourceType;
  @OptionalField({ example: 'db.example.com' }) @Is.Host() host?: string;
  @OptionalField({ example: 5432 }) @Is.Port() port?: number;
  @OptionalField({ example: 'ledger' }) @Is.NonEmptyName() databaseName?: string;
  @OptionalField({ example: 'public', nullable: true }) @Is.SchemaName() schema?: string | null;
  @OptionalField({ example: 'reporter' }) @Is.NonEmptyName() userName?: string;
  @OptionalField({ description: 'Re-encrypted at rest; never returned.' }) @Is.Password() password?: string;
  // Validated as SslOptionsDto: each of its fields is optional, so null there removes that setting.
  @OptionalField({ type: SslOptionsDto, nullable: true }) @Is.Nested(() => SslOptionsDto) ssl?: SslPatch | null;
  @OptionalField({ example: { team: 'finance' }, nullable: true, description: 'Replaces the whole object.' })
  @Is.Metadata()
  metadata?: Record<string, unknown> | null;
}

/** The SSL options of a PATCH: each field may be null to remove it. */
export type SslPatch = { [K in keyof SslOptionsDto]?: SslOptionsDto[K] | null };
