import { FREE_OBJECT_SCHEMA } from '../../common/http/json-shapes.js';
import { OptionalField } from '../../common/http/body-field.decorator.js';
import { DatasourceType } from '../../engine/connectors/datasource-type.js';
import * as Is from './connection-fields.decorator.js';
import { SslOptionsDto } from './create-connection.dto.js';

/** Named request-body examples of PATCH /v1/management/connections/{id}; the first is the one Swagger UI pre-fills. */
export const UPDATE_CONNECTION_EXAMPLES = {
  metadata: { summary: 'Replace the metadata', value: { metadata: { team: 'finance' } } },
  password: { summary: 'A new password (after a change of endpoint cleared it)', value: { password: 'postgres' } },
  endpoint: {
    summary: 'Move to another server, with its password (without one, the stored password, client certificate and key are cleared)',
    value: { host: 'db.example.com', port: 5432, password: 'postgres', ssl: { mode: 'require' } },
  },
};

/**
 * PATCH body: every field optional; a field present replaces the stored one. `metadata` replaces
 * the whole object; `schema: null` and `metadata: null` clear them. `ssl` merges field by field
 * (`ca: null` removes the CA); `ssl: null` removes every SSL setting. An optional field lets null
 * through as it lets absence: the rules apply to a value given.
 */
export class UpdateConnectionDto {
  @OptionalField({ example: 'pg_source' }) @Is.ConfigName() configName?: string;
  @OptionalField({ enum: DatasourceType }) @Is.DatasourceType() type?: DatasourceType;
  @OptionalField({ example: '127.0.0.1' }) @Is.Host() host?: string;
  @OptionalField({ example: 5432 }) @Is.Port() port?: number;
  @OptionalField({ example: 'source' }) @Is.NonEmptyName() databaseName?: string;
  @OptionalField({ type: String, example: 'public', nullable: true }) @Is.SchemaName() schema?: string | null;
  @OptionalField({ example: 'postgres' }) @Is.NonEmptyName() userName?: string;
  @OptionalField({ description: 'Re-encrypted at rest; never returned.' }) @Is.Password() password?: string;
  // Validated as SslOptionsDto: each of its fields is optional, so null there removes that setting.
  @OptionalField({ type: SslOptionsDto, nullable: true }) @Is.Nested(() => SslOptionsDto) ssl?: SslPatch | null;
  @OptionalField({ ...FREE_OBJECT_SCHEMA, example: { team: 'finance' }, nullable: true, description: 'Replaces the whole object.' })
  @Is.Metadata()
  metadata?: Record<string, unknown> | null;
}

/** The SSL options of a PATCH: each field may be null to remove it. */
export type SslPatch = { [K in keyof SslOptionsDto]?: SslOptionsDto[K] | null };
