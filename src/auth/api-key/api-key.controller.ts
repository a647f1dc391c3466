import { LIMIT_QUERY, PAGE_QUERY, textQuery } from '../../common/http/query-docs.js';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../../common/http/api-docs.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import {
  invalidField,
  invalidId,
  JSON_BODY,
  LIST_QUERY,
  missingFields,
  notFound,
  STORE_UNAVAILABLE,
} from '../../common/http/api-error-cases.js';
import { mergeErrorAnswers } from '../../common/http/api-error-response.js';
import { ParseIdPipe } from '../../common/http/parse-id.pipe.js';
import { Access, Allow, CurrentPrincipal } from '../access.decorators.js';
import { ApiAuth, ApiErrors } from '../api-auth.decorator.js';
import type { Principal } from '../principal.js';
import { ApiKeyService } from './api-key.service.js';
import { ApiKeyPageDto, CreatedApiKeyDto } from './dto/api-key-response.dto.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';

@ApiTags('api keys')
@ApiAuth()
@Allow(Access.Operator)
@Controller('v1/management/api-keys')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue an API key for a product (the key is shown once)' })
  @ApiResponse({ status: 201, type: CreatedApiKeyDto })
  @ApiErrors(
    Access.Operator,
    mergeErrorAnswers(JSON_BODY, {
      400: [missingFields('productName'), invalidField('productName', 'productName must be 1-100 characters of [A-Za-z0-9_-]')],
      503: [STORE_UNAVAILABLE],
    }),
  )
  create(@Body() body: CreateApiKeyDto, @CurrentPrincipal() principal: Principal): Promise<CreatedApiKeyDto> {
    return this.keys.create(body, principal);
  }

  @Get()
  @ApiOperation({ summary: 'List active API keys (no key material)' })
  @ApiQuery(PAGE_QUERY)
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery(textQuery('productName', 'Only this product’s keys.', 'reporter'))
  @ApiResponse({ status: 200, type: ApiKeyPageDto })
  @ApiErrors(Access.Operator, {
    400: [
      ...(LIST_QUERY[400] ?? []).filter(([code]) => code === FetCode.InvalidQuery || code === FetCode.PageLimitExceeded),
      [
        FetCode.InvalidQuery,
        'productName must be 1-100 characters of [A-Za-z0-9_-]',
        { label: 'productName', fields: { productName: 'invalid product name' } },
      ],
    ],
    503: [STORE_UNAVAILABLE],
  })
  list(@Query() query: Record<string, unknown>): Promise<ApiKeyPageDto> {
    return this.keys.list(query);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key, at once on every replica' })
  @ApiResponse({ status: 204 })
  @ApiErrors(Access.Operator, mergeErrorAnswers(invalidId('api key'), notFound('api key'), { 503: [STORE_UNAVAILABLE] }))
  async revoke(@Param('id', new ParseIdPipe('api key')) id: string): Promise<void> {
    await this.keys.revoke(id);
  }
}
