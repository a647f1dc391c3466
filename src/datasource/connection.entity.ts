import { EntitySchema } from 'typeorm';
import { columnTypes, type DatabaseKind } from '../persistence/database-kind.js';
import type { DatasourceType } from '../engine/connectors/datasource-type.js';

export interface ConnectionRecord {
  id: string;
  productName: string | null;
  configName: string;
  type: DatasourceType;
  host: string;
  port: number;
  databaseName: string;
  schemaName: string | null;
  userName: string;
  passwordEncrypted: string;
  sslMode: string | null;
  sslCaEncrypted: string | null;
  sslCertEncrypted: string | null;
  sslKeyEncrypted: string | null;
  encryptionKeyVersion: string;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export const CONNECTION_ENTITY = 'Connection';

export function connectionEntity(kind: DatabaseKind): EntitySchema<ConnectionRecord> {
  const types = columnTypes(kind);
  const text = (name: string, nullable = false) => ({ type: 'text' as const, name, nullable });
  const varchar = (name: string, length: number, nullable = false) => ({ type: 'varchar' as const, name, length, nullable });
  return new EntitySchema<ConnectionRecord>({
    name: CONNECTION_ENTITY,
    tableName: 'connections',
    columns: {
      id: { type: 'varchar', length: 36, primary: true },
      productName: varchar('product_name', 100, true),
      configName: varchar('config_name', 100),
      type: varchar('type', 20),
      host: varchar('host', 255),
      port: { type: 'integer', name: 'port' },
      databaseName: varchar('database_name', 255),
      schemaName: varchar('schema_name', 255, true),
      userName: varchar('user_name', 255),
      passwordEncrypted: text('password_encrypted'),
      sslMode: varchar('ssl_mode', 32, true),
      sslCaEncrypted: text('ssl_ca_encrypted', true),
      sslCertEncrypted: text('ssl_cert_encrypted', true),
      sslKeyEncrypted: text('ssl_key_encrypted', true),
      encryptionKeyVersion: varchar('encryption_key_version', 32),
      metadata: { type: types.json, name: 'metadata', nullable: true },
      createdAt: { type: types.timestamp, name: 'created_at' },
      updatedAt: { type: types.timestamp, name: 'updated_at' },
      deletedAt: { type: types.timestamp, name: 'deleted_at', nullable: true },
    },
  });
}
