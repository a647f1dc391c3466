import { createDecipheriv, hkdfSync } from 'node:crypto';
import { DatasourceType } from '../../engine/connectors/datasource-type.js';
import type { ServiceDatasource } from '../service-datasource.js';

/**
 * A PostgreSQL connection of product `reporter` as the resolver hands it to the job service
 * (`reader`/`secret` at `<configName>.internal:5432/app`); `overrides` names what a spec is about.
 */
export function serviceDatasource(configName: string, overrides: Partial<ServiceDatasource> = {}): ServiceDatasource {
  return {
    id: `id-${configName}`,
    configName,
    type: DatasourceType.PostgreSQL,
    host: `${configName}.internal`,
    port: 5432,
    databaseName: 'app',
    schemaName: null,
    userName: 'reader',
    password: 'secret',
    ssl: { mode: null },
    metadata: {},
    productName: 'reporter',
    internal: false,
    ...overrides,
  };
}

/** Independent of src/: AES-256-GCM under HKDF-SHA256(master, no salt, `fetcher-credentials-v1`). */
export function openSealedCredential(masterBase64: string, sealed: string): string {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(masterBase64, 'base64'), Buffer.alloc(0), 'fetcher-credentials-v1', 32));
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}
