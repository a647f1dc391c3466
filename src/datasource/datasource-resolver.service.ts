import { Injectable } from '@nestjs/common';
import { FetCode } from '../engine/errors/fet-code.js';
import { RequestValidationError } from '../common/errors/request-errors.js';
import type { ConnectionRecord } from './connection.entity.js';
import { ConnectionRepository } from './connection.repository.js';
import type { ServiceDatasource } from './service-datasource.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { DatasourceError } from './datasource.error.js';
import { InternalDatasources } from './internal/internal-datasources.service.js';

/** The products whose connections a name may resolve to: some products, or every one (an operator). */
export type NameScope = readonly string[] | 'all';

/** A datasource a job recorded at submission: the name it used and the connection that name resolved to. */
export interface RecordedDatasource {
  readonly configName: string;
  readonly connectionId: string | null;
}

/** A connection or internal datasource holding a name, and its product. */
export interface NameHolder {
  readonly configName: string;
  readonly productName: string | null;
  readonly internal: boolean;
}

/**
 * Turns config names or recorded ids into ready-to-connect datasources (secrets decrypted in
 * memory only). A name is looked up within products: another product's connection is exactly as
 * absent as one nobody registered, so nothing here tells a caller what other products hold.
 */
@Injectable()
export class DatasourceResolver {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly internal: InternalDatasources,
    private readonly cipher: CredentialCipher,
  ) {}

  /**
   * Every name that resolves within `scope`, keyed by config name: an internal datasource open to
   * the scope (their names are reserved, so they come first), else the scope's stored connection of
   * that name. A name held by several products of the scope answers 400 FET-0403: the caller must
   * name the product in X-Product-Name.
   */
  async resolve(configNames: readonly string[], scope: NameScope): Promise<Map<string, ServiceDatasource>> {
    const resolved = new Map<string, ServiceDatasource>();
    const internalNames = new Set<string>();
    for (const name of configNames) {
      const internal = this.internal.findByConfigName(name);
      if (!internal) continue;
      internalNames.add(name);
      if (InternalDatasources.openTo(internal, scope)) resolved.set(name, InternalDatasources.resolved(internal, scope));
    }
    const external = configNames.filter((name) => !internalNames.has(name));
    const records = await this.connections.findByConfigNames(external, scope);
    for (const name of external) {
      const matches = records.filter((record) => record.configName === name);
      if (matches.length > 1) throw ambiguousName(name, matches);
      if (matches.length === 1) resolved.set(name, this.fromRecord(matches[0]));
    }
    return resolved;
  }

  /**
   * The connections a job recorded at submission, each loaded by id and checked again against the
   * job's product; one deleted or moved since fails with FET-1020 (nothing of another product is
   * ever read). Rows recorded before jobs kept ids resolve by name within the job's product.
   */
  async resolveRecorded(recorded: readonly RecordedDatasource[], productName: string | null): Promise<Map<string, ServiceDatasource>> {
    const scope = productName ? [productName] : [];
    const resolved = new Map<string, ServiceDatasource>();
    for (const { configName, connectionId } of recorded) {
      const datasource =
        connectionId === null ? (await this.resolve([configName], scope)).get(configName) : await this.loadRecorded(connectionId, scope);
      if (!datasource) throw goneSinceSubmission(configName);
      // The job's name stays the key: a rename since submission does not change what the job asked for.
      resolved.set(configName, { ...datasource, configName });
    }
    return resolved;
  }

  /**
   * Where names that did not resolve for a product live after all: for an operator's diagnosis
   * only (an operator sees what every product owns; a product never gets this).
   */
  async holders(configNames: readonly string[]): Promise<NameHolder[]> {
    const internal = configNames.flatMap((configName) =>
      this.internal.findByConfigName(configName) ? [{ configName, productName: null, internal: true }] : [],
    );
    const stored = await this.connections.findByConfigNames(configNames, 'all');
    return [...internal, ...stored.map(({ configName, productName }) => ({ configName, productName, internal: false }))];
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
      // Sessions are reused only within the product, and only until the connection changes.
      ...(record.productName === null ? {} : { reuseScope: `${record.productName}@${record.updatedAt.toISOString()}` }),
    };
  }

  private async loadRecorded(connectionId: string, scope: readonly string[]): Promise<ServiceDatasource | undefined> {
    const internal = this.internal.findById(connectionId);
    if (internal) return InternalDatasources.openTo(internal, scope) ? InternalDatasources.resolved(internal, scope) : undefined;
    const record = await this.connections.findById(connectionId);
    if (!record || record.productName === null || !scope.includes(record.productName)) return undefined;
    return this.fromRecord(record);
  }
}

function passwordRequired(configName: string): DatasourceError {
  return new DatasourceError(
    FetCode.PasswordRequired,
    `Connection '${configName}' has no password: it was cleared when the connection's type, host, port, database or SSL settings changed. PATCH a password to use it again.`,
    { details: [{ type: 'password_required', datasource: configName }] },
  );
}

/** Only raised within a scope the caller acts for, so the products it lists are the caller's own. */
function ambiguousName(configName: string, matches: readonly ConnectionRecord[]): RequestValidationError {
  const products = matches.map((record) => record.productName ?? '(unassigned)').sort();
  return new RequestValidationError(
    FetCode.InvalidHeader,
    `'${configName}' names a connection in several products (${products.join(', ')}): name the product in the X-Product-Name header`,
    { details: [{ type: 'ambiguous_datasource', datasource: configName }] },
  );
}

function goneSinceSubmission(configName: string): DatasourceError {
  return new DatasourceError(
    FetCode.MissingDatasource,
    `Connection '${configName}' was deleted, or no longer belongs to the job's product, since the job was submitted; nothing was read from it. Submit the job again.`,
    { details: [{ type: 'datasource_not_found', datasource: configName }] },
  );
}
