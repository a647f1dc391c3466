import { Injectable } from '@nestjs/common';
import type { ConnectionRecord } from './connection.entity.js';
import { ConnectionRepository } from './connection.repository.js';
import type { ResolvedDatasource } from './connectors/engine-connector.js';
import { CredentialCipher } from './credential-cipher.service.js';

/** Turns config names into ready-to-connect datasources (secrets decrypted in memory only). */
@Injectable()
export class DatasourceResolver {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly cipher: CredentialCipher,
  ) {}

  /** Every name that resolves, keyed by config name; names that do not resolve are absent. */
  async resolve(configNames: readonly string[]): Promise<Map<string, ResolvedDatasource>> {
    const records = await this.connections.findByConfigNames(configNames);
    return new Map(records.map((record) => [record.configName, this.toResolved(record)]));
  }

  private toResolved(record: ConnectionRecord): ResolvedDatasource {
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
