import { FREE_OBJECT_SCHEMA } from '../../common/http/json-shapes.js';
import { OptionalField, RequiredField } from '../../common/http/body-field.decorator.js';
import { DatasourceType } from '../../engine/connectors/datasource-type.js';
import * as Is from './connection-fields.decorator.js';

/** The README walkthrough's connection, the body Swagger UI pre-fills (X-Product-Name: reporter). */
export const WALKTHROUGH_CONNECTION = {
  configName: 'pg_source',
  type: 'POSTGRESQL',
  host: '127.0.0.1',
  port: 5432,
  databaseName: 'source',
  userName: 'postgres',
  password: 'postgres',
};

/** Named request-body examples of POST /v1/management/connections; the first is the one Swagger UI pre-fills. */
export const CREATE_CONNECTION_EXAMPLES = {
  walkthrough: { summary: 'The README walkthrough: the fixture database `source`', value: WALKTHROUGH_CONNECTION },
  tls: {
    summary: 'Over TLS, with a default schema and metadata',
    value: {
      ...WALKTHROUGH_CONNECTION,
      configName: 'pg_ledger',
      host: 'db.example.com',
      databaseName: 'ledger',
      schema: 'accounting',
      ssl: { mode: 'verify-full', ca: '-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----' },
      metadata: { team: 'finance' },
    },
  },
};

export class SslOptionsDto {
  @OptionalField({ example: 'require', description: 'Engine-specific SSL mode (see the connection guide).' }) @Is.SslMode() mode?: string;
  @OptionalField({ description: 'PEM CA certificate used to verify the server. Encrypted at rest, never returned.' }) @Is.Pem() ca?: string;
  @OptionalField({ description: 'PEM client certificate. Encrypted at rest, never returned.' }) @Is.Pem() cert?: string;
  @OptionalField({ description: 'PEM client private key. Encrypted at rest, never returned.' }) @Is.Pem() key?: string;
}

export class CreateConnectionDto {
  @RequiredField({ example: 'pg_source', description: '3–100 characters of [A-Za-z0-9_-], unique among live connections.' })
  @Is.ConfigName()
  configName!: string;

  @RequiredField({ enum: DatasourceType, example: DatasourceType.PostgreSQL }) @Is.DatasourceType() type!: DatasourceType;
  @RequiredField({ example: '127.0.0.1' }) @Is.Host() host!: string;
  @RequiredField({ example: 5432, minimum: 1, maximum: 65535 }) @Is.Port() port!: number;
  @RequiredField({ example: 'source' }) @Is.NonEmptyName() databaseName!: string;
  @OptionalField({ example: 'public', description: 'Default schema for unqualified table names.' }) @Is.SchemaName() schema?: string;
  @RequiredField({ example: 'postgres' }) @Is.NonEmptyName() userName!: string;
  @RequiredField({ example: 'postgres', description: 'Encrypted at rest; never returned.' }) @Is.Password() password!: string;
  @OptionalField({ type: SslOptionsDto }) @Is.Nested(() => SslOptionsDto) ssl?: SslOptionsDto;

  @OptionalField({
    ...FREE_OBJECT_SCHEMA,
    example: { team: 'finance' },
    description: 'Free-form. Oracle needs serviceName; MongoDB reads authSource (it is always connected directly to the host given).',
  })
  @Is.Metadata()
  metadata?: Record<string, unknown>;
}
