import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth, ApiErrors } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ActingProduct, ListScope, type ProductScope } from '../auth/product-scope.js';
import { ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import { knownQuery } from '../common/http/list-request.js';
import { parsePageRequest, type PageRequest } from '../common/http/pagination.js';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { CREATE_WEBHOOK_EXAMPLES, CreateWebhookDto } from './dto/create-webhook.dto.js';
import { WebhookDeliveryPageDto, WebhookDto, WebhookPageDto, WebhookWithSecretDto } from './dto/webhook-response.dto.js';
import {
  CREATE_WEBHOOK_ANSWERS,
  DELETE_WEBHOOK_ANSWERS,
  GET_WEBHOOK_ANSWERS,
  LIST_DELIVERIES_ANSWERS,
  LIST_WEBHOOKS_ANSWERS,
  ROTATE_SECRET_ANSWERS,
} from './webhook.api-docs.js';
import { WebhookService } from './webhook.service.js';

const ID = new ParseIdPipe('webhook');

/** `page` and `limit`; anything else is a 400 naming it (FET-0405). */
function pageOf(query: Record<string, unknown>): PageRequest {
  return parsePageRequest(knownQuery(query, (key) => key === 'page' || key === 'limit'));
}
const PageDoc = () => (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
  ApiQuery({ name: 'page', required: false, example: 1 })(target, key, descriptor);
  ApiQuery({ name: 'limit', required: false, example: 10, description: 'At most 100.' })(target, key, descriptor);
};

/**
 * Webhooks (docs/webhooks.md): any principal; a product principal sees and changes only its own
 * products' webhooks (another's is 404), an operator all of them.
 */
@ApiTags('webhooks')
@ApiAuth()
@Allow(Access.Principal)
@Controller('v1/management/webhooks')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Register a webhook for a product’s terminal job events',
    description: 'The answer carries the signing secret; it is never shown again (POST …/{id}/rotate-secret issues a new one).',
  })
  @ApiHeader({
    name: 'X-Product-Name',
    required: false,
    example: 'reporter',
    description: 'Owning product. Required for operators (and in AUTH_MODE=none) and for credentials of several products.',
  })
  @ApiBody({ type: CreateWebhookDto, examples: CREATE_WEBHOOK_EXAMPLES })
  @ApiResponse({ status: 201, type: WebhookWithSecretDto })
  @ApiErrors(Access.Principal, CREATE_WEBHOOK_ANSWERS)
  create(@ActingProduct() productName: string, @Body() body: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    return this.webhooks.create(productName, body);
  }

  @Get()
  @ApiOperation({ summary: 'List webhooks (a product credential: its products’; an operator: all)' })
  @ApiHeader({ name: 'X-Product-Name', required: false, description: 'Only this product’s webhooks.' })
  @PageDoc()
  @ApiResponse({ status: 200, type: WebhookPageDto })
  @ApiErrors(Access.Principal, LIST_WEBHOOKS_ANSWERS)
  list(@ListScope() scope: ProductScope, @Query() query: Record<string, unknown>): Promise<WebhookPageDto> {
    return this.webhooks.list(scope, pageOf(query));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one webhook (never its secret)' })
  @ApiResponse({ status: 200, type: WebhookDto })
  @ApiErrors(Access.Principal, GET_WEBHOOK_ANSWERS)
  get(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<WebhookDto> {
    return this.webhooks.get(id, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook: nothing more is sent to it; its pending deliveries become dead' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiErrors(Access.Principal, DELETE_WEBHOOK_ANSWERS)
  async remove(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.webhooks.remove(id, principal);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a new signing secret; the old one stops signing at once' })
  @ApiResponse({ status: 200, type: WebhookWithSecretDto })
  @ApiErrors(Access.Principal, ROTATE_SECRET_ANSWERS)
  rotateSecret(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<WebhookWithSecretDto> {
    return this.webhooks.rotateSecret(id, principal);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The webhook’s deliveries, newest first, each with its state and attempts' })
  @PageDoc()
  @ApiResponse({ status: 200, type: WebhookDeliveryPageDto })
  @ApiErrors(Access.Principal, LIST_DELIVERIES_ANSWERS)
  deliveries(
    @Param('id') id: string,
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
  ): Promise<WebhookDeliveryPageDto> {
    // The query before the id, as on every list: a refused page answers the same whatever the path.
    const page = pageOf(query);
    return this.webhooks.deliveriesOf(ID.transform(id), principal, page);
  }
}
