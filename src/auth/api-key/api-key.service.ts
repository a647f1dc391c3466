import { Injectable } from '@nestjs/common';
import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from '../../common/errors/request-errors.js';
import { flatQuery, invalidQuery, parsePageRequest } from '../../common/http/pagination.js';
import { entityNotFound } from '../../common/errors/not-found.error.js';
import type { Principal } from '../principal.js';
import { hashApiKey, newApiKey } from './api-key-secret.js';
import type { ApiKeyRecord } from './api-key.entity.js';
import { ApiKeyRepository } from './api-key.repository.js';
import { ApiKeyDto, type ApiKeyPageDto, type CreatedApiKeyDto } from './dto/api-key-response.dto.js';
import type { CreateApiKeyDto } from './dto/create-api-key.dto.js';
import { Clock } from '../../common/clock/clock.js';
import { IdGenerator } from '../../common/clock/id-generator.js';

const KNOWN_QUERY = new Set(['page', 'limit', 'productName']);

/** Issuing, listing and revoking product API keys (operators only). */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async create(dto: CreateApiKeyDto, creator: Principal): Promise<CreatedApiKeyDto> {
    const key = newApiKey();
    const record: ApiKeyRecord = {
      id: this.ids.orderedUuid(),
      productName: dto.productName,
      name: dto.name,
      keyHash: hashApiKey(key),
      createdBy: creator.id,
      createdAt: this.clock.now(),
      revokedAt: null,
    };
    await this.keys.insert(record);
    return { ...ApiKeyDto.from(record), key };
  }

  async list(rawQuery: Record<string, unknown>): Promise<ApiKeyPageDto> {
    const query = flatQuery(rawQuery);
    const unknown = Object.keys(query).filter((name) => !KNOWN_QUERY.has(name));
    if (unknown.length > 0) throw invalidQuery(FetCode.InvalidQuery, `unknown query parameter(s): ${unknown.join(', ')}`, unknown);
    const { page, limit } = parsePageRequest(query);
    const productName = query.productName?.trim().toLowerCase();
    if (productName !== undefined && !/^[a-z0-9_-]{1,100}$/.test(productName)) {
      throw new RequestValidationError(FetCode.InvalidQuery, 'productName must be 1-100 characters of [A-Za-z0-9_-]', {
        fields: { productName: 'invalid product name' },
      });
    }
    const { items, total } = await this.keys.listActive(productName, { skip: (page - 1) * limit, take: limit });
    return { items: items.map((record) => ApiKeyDto.from(record)), page, limit, total };
  }

  async revoke(id: string): Promise<void> {
    if (!(await this.keys.revoke(id, this.clock.now()))) throw entityNotFound('api key');
  }
}
