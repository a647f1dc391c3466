import { OptionalField, RequiredField } from '../../common/http/body-field.decorator.js';
import { DatasourceType } from '../../datasource/datasource-type.js';
import * as Is from './connection-fields.decorator.js';

export class SslOptionsDto {
  @OptionalField({ example: 'require', description: 'Engine-specific SSL mode (see the connection guide).' }) @Is.SslMode() mode?: string;
  @OptionalField({ description: 'PEM CA certificate used to verify the server. Encrypted at rest, never returned.' }) @Is.Pem() ca?: string;
  @OptionalField({ description: 'PEM client certificate. Encrypted at rest, never returned.' }) @Is.Pem() cert?: string;
  @OptionalField({ description: 'PEM client private key. Encrypted at rest, never returned.' }) @Is.Pem() key?: string;
}

export class CreateConnectionDto {
  @RequiredField({ example: 'pg_main', description: '3–100 characters of [A-Za-z0-9_-], unique among live connections.' })
  @Is.ConfigName()
  configName!: string;

  @RequiredField({ enum: DatasourceType, example: DatasourceType.PostgreSQL }) @Is.DatasourceType() type!: DatasourceType;
  @RequiredField({ example: 'db.example.com' }) @Is.Host() host!: string;
  @RequiredField({ example: 5432, minimum: 1, maximum: 65535 }) @Is.Port() port!: number;
  @RequiredField({ example: 'ledger' }) @Is.NonEmptyName() databaseName!: string;
  @OptionalField({ example: 'public', description: 'Default schema for unqualified table names.' }) @Is.SchemaName() schema?: string;
  @RequiredField({ example: 'reporter' }) @Is.NonEmptyName() userName!: string;
  @RequiredField({ example: 's3cret', description: 'Encrypted at rest; never returned.' }) @Is.Password() password!: string;
  @OptionalField({ type: SslOptionsDto }) @Is.Nested(() => SslOptionsDto) ssl?: SslOptionsDto;

  @OptionalField({
    example: { team: 'finance' },
    description: 'Free-form. Oracle needs serviceName; MongoDB reads authSource (it is always connected directly to the host given).',
  })
  @Is.Metadata()
  metadata?: Record<string, unknown>;
}
