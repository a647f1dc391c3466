import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../../common/http/api-docs.js';
import { ErrorEnvelopeDto } from '../../common/http/error-envelope.dto.js';
import { ParseIdPipe } from '../../common/http/parse-id.pipe.js';
import { Access, Allow, CurrentPrincipal } from '../access.decorators.js';
import { ApiAuth } from '../api-auth.decorator.js';
import type { Principal } from '../principal.js';
import { ApiKeyService } from './api-key.service.js';
import { ApiKeyPageDto, CreatedApiKeyDto } from './dto/api-key-response.dto.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';

@ApiTags('api keys')
@ApiAuth(Access.Operator)
@Allow(Access.Operator)
@Controller('v1/management/api-keys')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue an API key for a product (the key is shown once)' })
  @ApiResponse({ status: 201, type: CreatedApiKeyDto })
  @ApiResponse({ status: 400, type: ErrorEnvelopeDto, description: 'FET-0001/0402 body' })
  create(@Body() body: CreateApiKeyDto, @CurrentPrincipal() principal: Principal): Promise<CreatedApiKeyDto> {
    return this.keys.create(body, principal);
  }

  @Get()
  @ApiOperation({ summary: 'List active API keys (no key material)' })
  @ApiQuery({ name: 'page', required: false, example: 1 })
  @ApiQuery({ name: 'limit', required: false, example: 10, description: 'At most 100.' })
  @ApiQuery({ name: 'productName', required: false, example: 'reporter' })
  @ApiResponse({ status: 200, type: ApiKeyPageDto })
  @ApiResponse({ status: 400, type: ErrorEnvelopeDto, description: 'FET-0405 query, FET-0406 limit' })
  list(@Query() query: Record<string, unknown>): Promise<ApiKeyPageDto> {
    return this.keys.list(query);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key, at once on every replica' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, type: ErrorEnvelopeDto, description: 'FET-0404 invalid id' })
  @ApiResponse({ status: 404, type: ErrorEnvelopeDto, description: 'FET-1001 unknown or already revoked' })
  async revoke(@Param('id', new ParseIdPipe('api key')) id: string): Promise<void> {
    await this.keys.revoke(id);
  }
}
