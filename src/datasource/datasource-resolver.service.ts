import { Injectable } from '@nestjs/common';
import type { ConnectionRecord } from './connection.entity.js';
import { ConnectionRepository } from './connection.repository.js';
import type { ResolvedDatasource } from './connectors/engine-connector.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { InternalDatasources } from './internal/internal-datasources.service.js';

/** Turns config names or ids into ready-to-connect datasources (secrets decrypted in memory only). */
@Injectable()
export class DatasourceResolver {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly internal: InternalDatasources,
    private readonly cipher: CredentialCipher,
  ) {}

  /** Every name that resolves, keyed by config name; internal datasources first (their names are reserved). */
  async resolve(configNames: readonly string[]): Promise<Map<string, ResolvedDatasource>> {
    const resolved = new Map<string, ResolvedDatasource>();
    for (const name of configNames) {
      const internal = this.internal.findByConfigName(name);
      if (internal) resolved.set(name, InternalDatasources.resolved(internal));
    }
    const external = configNames.filter((name) => !resolved.has(name));
    for (const record of await this.connections.findByConfigNames(external)) resolved.set(record.configName, this.fromRecord(record));
    return resolved;
  }

  fromRecord(record: ConnectionRecord): ResolvedDatasource {
    const version = record.encryptionKeyVersion;
    return {
      id: record.id,
      configName: record.configName,
      type: record.type,
      host: record.host,
      port: record.port,
      databaseName: record.databaseName,
      schemaName: record.schemaName,
      userName: record.userName,
      password: this.cipher.decrypt(record.passwordEncrypted, version),
      ssl: {
        mode: record.sslMode,
        ca: this.cipher.decryptOptional(record.sslCaEncrypted, version),
        cert: this.cipher.decryptOptional(record.sslCertEncrypted, version),
        key: this.cipher.decryptOptional(record.sslKeyEncrypted, version),
      },
      metadata: record.metadata ?? {},
      productName: record.productName,
      internal: false,
    };
  }
}
