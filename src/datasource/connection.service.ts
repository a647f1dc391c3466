import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { FetCode } from '../common/errors/fet-code.js';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { CredentialCipher } from './credential-cipher.service.js';
import type { ConnectionRecord } from './connection.entity.js';
import { ConnectionRepository } from './connection.repository.js';
import { DatasourceError } from './datasource.error.js';
import { DatasourceType } from './datasource-type.js';
import { ConnectionPageDto, ConnectionResponseDto } from './dto/connection-response.dto.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';
import type { ListConnectionsQuery } from './dto/list-connections.query.js';
import { isValidSslMode, SSL_MODES } from './ssl-modes.js';

@Injectable()
export class ConnectionService {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly cipher: CredentialCipher,
  ) {}

  async create(productName: string, dto: CreateConnectionDto): Promise<ConnectionResponseDto> {
    this.assertEngineRules(dto);
    const now = new Date();
    const record: ConnectionRecord = {
      id: uuidv7(),
      productName,
      configName: dto.configName.trim(),
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
      if (isUniqueViolation(error)) {
        throw new DatasourceError(
          FetCode.DuplicateConfigName,
          'An entity of type connection with the same unique attributes already exists. Please use different values to avoid conflicts and review the data provided in the request.',
          { fields: { configName: `a connection named '${record.configName}' already exists` } },
        );
      }
      throw error;
    }
    return ConnectionResponseDto.from(record);
  }

  async get(id: string): Promise<ConnectionResponseDto> {
    const record = await this.connections.findById(id);
    if (!record) throw notFound();
    return ConnectionResponseDto.from(record);
  }

  async list(productName: string | undefined, query: ListConnectionsQuery): Promise<ConnectionPageDto> {
    const page = query.page ?? 1;
    const limit = query.limit ?? 10;
    const sortOrder = query.sortOrder?.toUpperCase() === 'ASC' ? 'ASC' : 'DESC';
    const { items, total } = await this.connections.list({ productName, type: query.type }, { page, limit, sortOrder });
    return { items: items.map((item) => ConnectionResponseDto.from(item)), page, limit, total };
  }

  private assertEngineRules(dto: CreateConnectionDto): void {
    if (!isValidSslMode(dto.type, dto.ssl?.mode)) {
      throw new DatasourceError(
        FetCode.InvalidSslMode,
        `Invalid SSL mode. The provided SSL mode '${dto.ssl?.mode}' is not supported for ${dto.type}; use one of: ${SSL_MODES[dto.type].join(', ')}.`,
        { fields: { 'ssl.mode': `must be one of ${SSL_MODES[dto.type].join(', ')}` } },
      );
    }
    if (dto.type === DatasourceType.Oracle && typeof dto.metadata?.serviceName !== 'string') {
      throw new DatasourceError(FetCode.MissingFields, 'Oracle connections need metadata.serviceName', {
        fields: { 'metadata.serviceName': 'metadata.serviceName is a required field for ORACLE' },
      });
    }
  }
}

export function notFound(entity: 'connection' | 'job' = 'connection'): DatasourceError {
  return new DatasourceError(
    FetCode.NotFound,
    `It was not possible to find the ${entity} entity during the requested flow. Please review the data provided in the request.`,
  );
}
