import { Inject, Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { ANONYMOUS_OPERATOR, type Principal } from '../auth/principal.js';
import { FetCode } from '../common/errors/fet-code.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { ACTIVE_JOBS, type ActiveJobs } from './active-jobs.port.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionRepository } from '../datasource/connection.repository.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { DatasourceError, notFound } from '../datasource/datasource.error.js';
import { DatasourceType } from '../datasource/datasource-type.js';
import { ConnectionResponseDto } from './dto/connection-response.dto.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';
import type { UpdateConnectionDto } from './dto/update-connection.dto.js';
import { InternalDatasources } from '../datasource/internal/internal-datasources.service.js';
import { isValidSslMode, SSL_MODES } from '../datasource/ssl-modes.js';
import { HostGuard } from '../datasource/ssrf/host-guard.service.js';

/** Creating, changing, assigning and deleting stored connections. */
@Injectable()
export class ConnectionService {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly queries: ConnectionQueryService,
    private readonly internal: InternalDatasources,
    private readonly cipher: CredentialCipher,
    private readonly guard: HostGuard,
    @Inject(ACTIVE_JOBS) private readonly activeJobs: ActiveJobs,
  ) {}

  async create(productName: string, dto: CreateConnectionDto): Promise<ConnectionResponseDto> {
    const configName = dto.configName.trim();
    this.assertNotReserved(configName);
    assertEngineRules(dto.type, dto.ssl?.mode ?? null, dto.metadata ?? null);
    await this.guard.assertAllowed(dto.host);
    const now = new Date();
    const record: ConnectionRecord = {
      id: uuidv7(),
      productName,
      configName,
      type: dto.type,
      host: dto.host.trim(),
      port: dto.port,
      databaseName: dto.databaseName.trim(),
      schemaName: dto.schema?.trim() || null,
      userName: dto.userName.trim(),
      passwordEncrypted: this.cipher.encrypt(dto.password),
      sslMode: dto.ssl?.mode || null,
      sslCaEncrypted: this.cipher.encryptOptional(dto.ssl?.ca),
      sslCertEncrypted: this.cipher.encryptOptional(dto.ssl?.cert),
      sslKeyEncrypted: this.cipher.encryptOptional(dto.ssl?.key),
      encryptionKeyVersion: this.cipher.keyVersion,
      metadata: dto.metadata ?? null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    try {
      await this.connections.insert(record);
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateName(configName) : error;
    }
    return ConnectionResponseDto.from(record);
  }

  /**
   * Merge update (see UpdateConnectionDto). Secrets present in the body are re-encrypted with the
   * current key version; existing ones are re-encrypted too so a row never mixes versions.
   */
  async update(id: string, dto: UpdateConnectionDto, principal: Principal): Promise<ConnectionResponseDto> {
    if (Object.values(dto).every((value) => value === undefined)) {
      throw new DatasourceError(FetCode.BadRequest, 'empty request body: send at least one field to change');
    }
    const current = await this.loadStored(id, 'modified', principal);
    await this.assertNoActiveJobs(current.configName, 'update');
    const next = this.merge(current, dto);
    if (next.configName !== current.configName) this.assertNotReserved(next.configName);
    assertEngineRules(next.type, next.sslMode, next.metadata);
    if (dto.host !== undefined) await this.guard.assertAllowed(next.host);

    try {
      if (!(await this.connections.update(id, next))) throw notFound();
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateName(next.configName) : error;
    }
    return ConnectionResponseDto.from(next);
  }

  async remove(id: string, principal: Principal): Promise<void> {
    const current = await this.loadStored(id, 'deleted', principal);
    await this.assertNoActiveJobs(current.configName, 'delete');
    if (!(await this.connections.softDelete(id, new Date()))) throw notFound();
  }

  /** Operators only (the route says so): a product cannot see an unassigned connection. */
  async assign(id: string, productName: string): Promise<ConnectionResponseDto> {
    await this.loadStored(id, 'assigned', ANONYMOUS_OPERATOR);
    if (!(await this.connections.assignProduct(id, productName, new Date()))) {
      const now = await this.connections.findById(id);
      if (!now) throw notFound();
      throw new DatasourceError(FetCode.AlreadyAssigned, 'The connection is already assigned to a product and cannot be reassigned.');
    }
    return ConnectionResponseDto.from((await this.connections.findById(id)) as ConnectionRecord);
  }

  private async loadStored(id: string, action: string, principal: Principal): Promise<ConnectionRecord> {
    const loaded = await this.queries.load(id, principal);
    if (loaded.internal) {
      throw new DatasourceError(
        FetCode.InternalDatasource,
        `'${loaded.datasource.configName}' is an internal datasource declared by DATASOURCE_${loaded.datasource.envName}_* variables; it cannot be ${action} through the API`,
      );
    }
    return loaded.record;
  }

  private async assertNoActiveJobs(configName: string, verb: 'update' | 'delete'): Promise<void> {
    if (await this.activeJobs.usesConnection(configName)) {
      throw new DatasourceError(FetCode.JobInProgress, `cannot ${verb} connection with active jobs`);
    }
  }

  private assertNotReserved(configName: string): void {
    if (this.internal.findByConfigName(configName)) {
      throw new DatasourceError(FetCode.DuplicateConfigName, `'${configName}' is the name of an internal datasource`, {
        fields: { configName: `'${configName}' is reserved by an internal datasource` },
      });
    }
  }

  private merge(current: ConnectionRecord, dto: UpdateConnectionDto): ConnectionRecord {
    const version = current.encryptionKeyVersion;
    const reseal = (incoming: string | null | undefined, stored: string | null) =>
      incoming === undefined ? this.cipher.reseal(stored, version) : this.cipher.encryptOptional(incoming);
    const ssl = dto.ssl === null ? { mode: null, ca: null, cert: null, key: null } : (dto.ssl ?? {});
    const next: ConnectionRecord = {
      ...current,
      configName: dto.configName?.trim() ?? current.configName,
      type: dto.type ?? current.type,
      host: dto.host?.trim() ?? current.host,
      port: dto.port ?? current.port,
      databaseName: dto.databaseName?.trim() ?? current.databaseName,
      schemaName: dto.schema === undefined ? current.schemaName : dto.schema?.trim() || null,
      userName: dto.userName?.trim() ?? current.userName,
      passwordEncrypted:
        dto.password === undefined ? this.cipher.reseal(current.passwordEncrypted, version) : this.cipher.encrypt(dto.password),
      sslMode: ssl.mode === undefined ? current.sslMode : ssl.mode || null,
      sslCaEncrypted: reseal(ssl.ca, current.sslCaEncrypted),
      sslCertEncrypted: reseal(ssl.cert, current.sslCertEncrypted),
      sslKeyEncrypted: reseal(ssl.key, current.sslKeyEncrypted),
      encryptionKeyVersion: this.cipher.keyVersion,
      metadata: dto.metadata === undefined ? current.metadata : dto.metadata,
      updatedAt: new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1)),
    };
    // A stored password goes only where it was entered: pointing the connection elsewhere (or
    // changing how it is protected in transit) without a new password forgets the old one.
    if (dto.password === undefined && this.movesEndpoint(current, next, ssl)) next.passwordEncrypted = '';
    return next;
  }

  private movesEndpoint(
    current: ConnectionRecord,
    next: ConnectionRecord,
    ssl: { ca?: string | null; cert?: string | null; key?: string | null },
  ): boolean {
    if (
      next.type !== current.type ||
      next.host.toLowerCase() !== current.host.toLowerCase() ||
      next.port !== current.port ||
      next.databaseName !== current.databaseName
    ) {
      return true;
    }
    if (next.sslMode !== current.sslMode) return true;
    const stored = (sealed: string | null) => (sealed === null ? null : this.cipher.decrypt(sealed, current.encryptionKeyVersion));
    const changed = (incoming: string | null | undefined, sealed: string | null) =>
      incoming !== undefined && (incoming || null) !== stored(sealed);
    return (
      changed(ssl.ca, current.sslCaEncrypted) || changed(ssl.cert, current.sslCertEncrypted) || changed(ssl.key, current.sslKeyEncrypted)
    );
  }
}

function assertEngineRules(type: DatasourceType, sslMode: string | null, metadata: Record<string, unknown> | null): void {
  if (!isValidSslMode(type, sslMode)) {
    throw new DatasourceError(
      FetCode.InvalidSslMode,
      `Invalid SSL mode. The provided SSL mode '${sslMode}' is not supported for ${type}; use one of: ${SSL_MODES[type].join(', ')}.`,
      { fields: { 'ssl.mode': `must be one of ${SSL_MODES[type].join(', ')}` } },
    );
  }
  if (type === DatasourceType.Oracle && typeof metadata?.serviceName !== 'string') {
    throw new DatasourceError(FetCode.MissingFields, 'Oracle connections need metadata.serviceName', {
      fields: { 'metadata.serviceName': 'metadata.serviceName is a required field for ORACLE' },
    });
  }
}

function duplicateName(configName: string): DatasourceError {
  return new DatasourceError(
    FetCode.DuplicateConfigName,
    'An entity of type connection with the same unique attributes already exists. Please use different values to avoid conflicts and review the data provided in the request.',
    { fields: { configName: `a connection named '${configName}' already exists` } },
  );
}
