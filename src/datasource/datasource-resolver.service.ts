import { Injectable } from '@nestjs/common';
import { actsFor, productsOf, type Principal } from '../auth/principal.js';
import { FetCode } from '../engine/errors/fet-code.js';
import type { ConnectionRecord } from './connection.entity.js';
import { ConnectionRepository } from './connection.repository.js';
import type { ServiceDatasource } from './service-datasource.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { DatasourceError } from './datasource.error.js';
import { InternalDatasources } from './internal/internal-datasources.service.js';

/** Turns config names or ids into ready-to-connect datasources (secrets decrypted in memory only). */
@Injectable()
export class DatasourceResolver {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly internal: InternalDatasources,
    private readonly cipher: CredentialCipher,
  ) {}

  /**
   * Every name that resolves, keyed by config name; internal datasources first (their names are
   * reserved). With a principal, only what it may use resolves: the rest is as unknown to it as a
   * name nobody registered.
   */
  async resolve(configNames: readonly string[], principal?: Principal): Promise<Map<string, ServiceDatasource>> {
    const resolved = new Map<string, ServiceDatasource>();
    const internalNames = new Set<string>();
    for (const name of configNames) {
      const internal = this.internal.findByConfigName(name);
      if (!internal) continue;
      internalNames.add(name);
      if (principal === undefined || InternalDatasources.openTo(internal, productsOf(principal)))
        resolved.set(name, InternalDatasources.resolved(internal));
    }
    const external = configNames.filter((name) => !internalNames.has(name));
    for (const record of await this.connections.findByConfigNames(external)) {
      if (principal === undefined || actsFor(principal, record.productName)) resolved.set(record.configName, this.fromRecord(record));
    }
    return resolved;
  }

  /** Throws 409 FET-1024 when the password was cleared: the connection is unusable until it gets one. */
  fromRecord(record: ConnectionRecord): ServiceDatasource {
    if (record.passwordEncrypted === '') throw passwordRequired(record.configName);
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

function passwordRequired(configName: string): DatasourceError {
  return new DatasourceError(
    FetCode.PasswordRequired,
    `Connection '${configName}' has no password: it was cleared when the connection's type, host, port, database or SSL settings changed. PATCH a password to use it again.`,
    { details: [{ type: 'password_required', datasource: configName }] },
  );
}
