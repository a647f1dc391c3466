import { dateQuery, LIMIT_QUERY, PAGE_QUERY, textQuery } from '../common/http/query-docs.js';
import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth, ApiErrors } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { RateLimitedPerPrincipal } from '../auth/principal-rate-limit.guard.js';
import { ActingProduct, ListScope, type ProductScope } from '../auth/product-scope.js';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { ProductName } from '../common/http/product-name.decorator.js';
import { ConnectionProbeService } from './connection-probe.service.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionService } from './connection.service.js';
import { DATASOURCE_TYPES } from '../engine/connectors/datasource-type.js';
import {
  ASSIGN_ANSWERS,
  CREATE_CONNECTION_ANSWERS,
  DELETE_CONNECTION_ANSWERS,
  GET_CONNECTION_ANSWERS,
  LIST_CONNECTIONS_ANSWERS,
  SCHEMA_ANSWERS,
  TEST_ANSWERS,
  UNASSIGNED_ANSWERS,
  UPDATE_CONNECTION_ANSWERS,
  VALIDATE_SCHEMA_ANSWERS,
} from './connection.api-docs.js';
import { ConnectionPageDto, ConnectionResponseDto, WALKTHROUGH_CONNECTION_RESPONSE } from './dto/connection-response.dto.js';
import { ENDPOINT_IDENTITY_FIELDS, IDENTITY_METADATA_TEXT } from './endpoint-identity.js';
import { CREATE_CONNECTION_EXAMPLES, CreateConnectionDto } from './dto/create-connection.dto.js';
import { parseListQuery } from './dto/list-connections.query.js';
import { ConnectionSchemaDto, ConnectionTestResultDto, SchemaValidationSuccessDto, ValidateSchemaDto } from './dto/schema.dto.js';
import { UPDATE_CONNECTION_EXAMPLES, UpdateConnectionDto } from './dto/update-connection.dto.js';
import { SchemaValidationService } from './schema-validation.service.js';

const ID = new ParseIdPipe('connection');
const LIST_QUERY_DOC = [
  PAGE_QUERY,
  LIMIT_QUERY,
  { name: 'sortOrder', required: false, enum: ['asc', 'desc'] },
  { name: 'type', required: false, enum: [...DATASOURCE_TYPES] },
  textQuery('host'),
  textQuery('databaseName'),
  dateQuery('startDate', 'On createdAt, UTC.'),
  dateQuery('endDate', 'Inclusive of the whole day, UTC.'),
  textQuery('metadata.<key>', 'Exact match, e.g. metadata.team=finance.'),
];
const ListQueryDoc = () => applyDecorators(...LIST_QUERY_DOC.map((query) => ApiQuery(query)));

/**
 * Any principal; a product principal sees, changes and uses only its products' connections (and
 * the internal datasources open to it). Listing unassigned ones and assigning are for operators.
 */
@ApiTags('connections')
@ApiAuth()
@Allow(Access.Principal)
@Controller('v1/management/connections')
export class ConnectionController {
  constructor(
    private readonly connections: ConnectionService,
    private readonly queries: ConnectionQueryService,
    private readonly probes: ConnectionProbeService,
    private readonly validation: SchemaValidationService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Register a database connection for a product',
    description:
      'The pre-filled body is the README walkthrough’s connection (X-Product-Name: reporter). Nothing connects to the database here: ' +
      'the host is checked by the SSRF guard, and POST …/{id}/test opens a real connection.',
  })
  @ApiHeader({
    name: 'X-Product-Name',
    required: false,
    example: 'reporter',
    description:
      'Owning product; stored lower-case. Required for operators (and in AUTH_MODE=none) and for credentials of several products.',
  })
  @ApiBody({ type: CreateConnectionDto, examples: CREATE_CONNECTION_EXAMPLES })
  @ApiResponse({ status: 201, type: ConnectionResponseDto, example: WALKTHROUGH_CONNECTION_RESPONSE })
  @ApiErrors(Access.Principal, CREATE_CONNECTION_ANSWERS)
  create(@ActingProduct() productName: string, @Body() body: CreateConnectionDto): Promise<ConnectionResponseDto> {
    return this.connections.create(productName, body);
  }

  @Get()
  @ApiOperation({ summary: 'List connections (offset pagination, filters)' })
  @ApiHeader({ name: 'X-Product-Name', required: false, description: 'Only this product’s own connections (no internal datasources).' })
  @ListQueryDoc()
  @ApiResponse({ status: 200, type: ConnectionPageDto })
  @ApiErrors(Access.Principal, LIST_CONNECTIONS_ANSWERS)
  list(@ListScope() scope: ProductScope, @Query() query: Record<string, unknown>): Promise<ConnectionPageDto> {
    return this.queries.list(scope, parseListQuery(query));
  }

  @Get('unassigned')
  @Allow(Access.Operator)
  @ApiOperation({ summary: 'List connections that belong to no product (operators)' })
  @ListQueryDoc()
  @ApiResponse({ status: 200, type: ConnectionPageDto })
  @ApiErrors(Access.Operator, UNASSIGNED_ANSWERS)
  unassigned(@Query() query: Record<string, unknown>): Promise<ConnectionPageDto> {
    return this.queries.unassigned(parseListQuery(query));
  }

  @Post('validate-schema')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check that every datasource, table and field of a mappedFields exists (rate-limited per principal, with GET …/schema)',
  })
  @ApiHeader({
    name: 'X-Product-Name',
    required: false,
    description: 'The product whose connections the names mean; needed when a name exists in several products the caller acts for.',
  })
  @RateLimitedPerPrincipal('schemaDiscoveries')
  @ApiResponse({ status: 200, type: SchemaValidationSuccessDto })
  @ApiErrors(Access.Principal, VALIDATE_SCHEMA_ANSWERS)
  validateSchema(@Body() body: ValidateSchemaDto, @ListScope() scope: ProductScope): Promise<SchemaValidationSuccessDto> {
    return this.validation.validate(body.mappedFields, scope.products);
  }

  @Post(':id/assign')
  @HttpCode(200)
  @Allow(Access.Operator)
  @ApiOperation({ summary: 'Assign an unassigned connection to a product, once (operators)' })
  @ApiHeader({ name: 'X-Product-Name', required: true, example: 'reporter' })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiErrors(Access.Operator, ASSIGN_ANSWERS)
  assign(@Param('id', ID) id: string, @ProductName() productName: string): Promise<ConnectionResponseDto> {
    return this.connections.assign(id, productName);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Open a real connection to the database (rate-limited per connection and per principal)' })
  @RateLimitedPerPrincipal('connectionTests')
  @ApiResponse({ status: 200, type: ConnectionTestResultDto })
  @ApiErrors(Access.Principal, TEST_ANSWERS)
  test(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<ConnectionTestResultDto> {
    return this.probes.test(id, principal);
  }

  @Get(':id/schema')
  @ApiOperation({ summary: 'Discover the tables and fields of the database, live (rate-limited per principal, with validate-schema)' })
  @RateLimitedPerPrincipal('schemaDiscoveries')
  @ApiResponse({ status: 200, type: ConnectionSchemaDto })
  @ApiErrors(Access.Principal, SCHEMA_ANSWERS)
  schema(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<ConnectionSchemaDto> {
    return this.probes.schema(id, principal);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one connection' })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiErrors(Access.Principal, GET_CONNECTION_ANSWERS)
  get(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<ConnectionResponseDto> {
    return this.queries.get(id, principal);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change a connection (merge)',
    description:
      `Changing a field that decides which server the credentials go to (${ENDPOINT_IDENTITY_FIELDS.join(', ')}, or the engine's ` +
      `identity metadata: ${IDENTITY_METADATA_TEXT}) removes the stored password, client ` +
      'certificate and key that the same PATCH does not replace (hasPassword: false, hasClientCertificate: false, hasClientKey: false); ' +
      'the answer lists the fields in identityChanged and what was removed in clearedCredentials.',
  })
  @ApiBody({ type: UpdateConnectionDto, examples: UPDATE_CONNECTION_EXAMPLES })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiErrors(Access.Principal, UPDATE_CONNECTION_ANSWERS)
  update(
    @Param('id', ID) id: string,
    @Body() body: UpdateConnectionDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ConnectionResponseDto> {
    return this.connections.update(id, body, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a connection (soft; its name becomes free)' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiErrors(Access.Principal, DELETE_CONNECTION_ANSWERS)
  async remove(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.connections.remove(id, principal);
  }
}
