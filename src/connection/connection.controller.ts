import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth, ApiOperatorRoute } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { RateLimitedPerPrincipal } from '../auth/principal-rate-limit.guard.js';
import { ActingProduct, ListScope, type ProductScope } from '../auth/product-scope.js';
import { ErrorEnvelopeDto } from '../common/http/error-envelope.dto.js';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { ProductName } from '../common/http/product-name.decorator.js';
import { ConnectionProbeService } from './connection-probe.service.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionService } from './connection.service.js';
import { DATASOURCE_TYPES } from '../datasource/datasource-type.js';
import { ConnectionPageDto, ConnectionResponseDto } from './dto/connection-response.dto.js';
import { CreateConnectionDto } from './dto/create-connection.dto.js';
import { parseListQuery } from './dto/list-connections.query.js';
import { ConnectionSchemaDto, ConnectionTestResultDto, SchemaValidationSuccessDto, ValidateSchemaDto } from './dto/schema.dto.js';
import { UpdateConnectionDto } from './dto/update-connection.dto.js';
import { SchemaValidationService } from './schema-validation.service.js';

const ID = new ParseIdPipe('connection');
const LIST_QUERY_DOC = [
  { name: 'page', required: false, example: 1 },
  { name: 'limit', required: false, example: 10, description: 'At most 100.' },
  { name: 'sortOrder', required: false, enum: ['asc', 'desc'] },
  { name: 'type', required: false, enum: [...DATASOURCE_TYPES] },
  { name: 'host', required: false },
  { name: 'databaseName', required: false },
  { name: 'startDate', required: false, example: '2026-01-01' },
  { name: 'endDate', required: false, example: '2026-01-31', description: 'Inclusive.' },
  { name: 'metadata.<key>', required: false, description: 'Exact match, e.g. metadata.team=finance.' },
];
const ListQueryDoc = () => applyDecorators(...LIST_QUERY_DOC.map((query) => ApiQuery(query)));
/** An error answer of this API: the envelope, with the codes a route gives under that status. */
const ApiErrorEnvelope = (status: number, description: string) => ApiResponse({ status, type: ErrorEnvelopeDto, description });

/**
 * Any principal; a product principal sees, changes and uses only its products' connections (and
 * the internal datasources open to it). Listing unassigned ones and assigning are for operators.
 */
@ApiTags('connections')
@ApiAuth(Access.Principal)
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
  @ApiOperation({ summary: 'Register a database connection for a product' })
  @ApiHeader({
    name: 'X-Product-Name',
    required: false,
    description: 'Owning product; stored lower-case. Required for operators and for credentials of several products.',
  })
  @ApiResponse({ status: 201, type: ConnectionResponseDto })
  @ApiErrorEnvelope(400, 'FET-0001/0402 body, FET-0403 header, FET-0413 SSL mode, FET-0414 forbidden host')
  @ApiErrorEnvelope(409, 'FET-1002 configName in use (or reserved by an internal datasource)')
  create(@ActingProduct() productName: string, @Body() body: CreateConnectionDto): Promise<ConnectionResponseDto> {
    return this.connections.create(productName, body);
  }

  @Get()
  @ApiOperation({ summary: 'List connections (offset pagination, filters)' })
  @ApiHeader({ name: 'X-Product-Name', required: false, description: 'Only this product’s own connections (no internal datasources).' })
  @ListQueryDoc()
  @ApiResponse({ status: 200, type: ConnectionPageDto })
  @ApiErrorEnvelope(400, 'FET-0405 query, FET-0406 limit, FET-0407 sortOrder, FET-0408/0409 dates')
  list(@ListScope() scope: ProductScope, @Query() query: Record<string, unknown>): Promise<ConnectionPageDto> {
    return this.queries.list(scope, parseListQuery(query));
  }

  @Get('unassigned')
  @Allow(Access.Operator)
  @ApiOperatorRoute()
  @ApiOperation({ summary: 'List connections that belong to no product (operators)' })
  @ListQueryDoc()
  @ApiResponse({ status: 200, type: ConnectionPageDto })
  unassigned(@Query() query: Record<string, unknown>): Promise<ConnectionPageDto> {
    return this.queries.unassigned(parseListQuery(query));
  }

  @Post('validate-schema')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check that every datasource, table and field of a mappedFields exists' })
  @ApiResponse({ status: 200, type: SchemaValidationSuccessDto })
  @ApiErrorEnvelope(422, 'FET-1060 with every missing datasource, table and field in details')
  validateSchema(@Body() body: ValidateSchemaDto, @CurrentPrincipal() principal: Principal): Promise<SchemaValidationSuccessDto> {
    return this.validation.validate(body.mappedFields, principal);
  }

  @Post(':id/assign')
  @HttpCode(200)
  @Allow(Access.Operator)
  @ApiOperatorRoute()
  @ApiOperation({ summary: 'Assign an unassigned connection to a product, once (operators)' })
  @ApiHeader({ name: 'X-Product-Name', required: true })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiErrorEnvelope(409, 'FET-1015 already assigned')
  assign(@Param('id', ID) id: string, @ProductName() productName: string): Promise<ConnectionResponseDto> {
    return this.connections.assign(id, productName);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Open a real connection to the database (rate-limited per connection and per principal)' })
  @RateLimitedPerPrincipal('connectionTests')
  @ApiResponse({ status: 200, type: ConnectionTestResultDto })
  @ApiErrorEnvelope(429, 'FET-1070 with Retry-After: tests of this connection, or of this principal, per minute exceeded')
  @ApiErrorEnvelope(409, 'FET-1024 the password was cleared by a change of endpoint')
  @ApiErrorEnvelope(
    502,
    'FET-1041 with reason: auth_failed | unreachable | timeout | tls | database_not_found | plaintext_password_refused | unknown',
  )
  test(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<ConnectionTestResultDto> {
    return this.probes.test(id, principal);
  }

  @Get(':id/schema')
  @ApiOperation({ summary: 'Discover the tables and fields of the database, live' })
  @ApiResponse({ status: 200, type: ConnectionSchemaDto })
  @ApiErrorEnvelope(502, 'FET-1041 cannot connect, FET-1042 discovery failed')
  schema(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<ConnectionSchemaDto> {
    return this.probes.schema(id, principal);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one connection' })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiResponse({ status: 404, type: ErrorEnvelopeDto })
  get(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<ConnectionResponseDto> {
    return this.queries.get(id, principal);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change a connection (merge)',
    description:
      'Changing type, host, port, databaseName or ssl without sending a new password clears the stored one (hasPassword: false).',
  })
  @ApiBody({ type: UpdateConnectionDto })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiErrorEnvelope(403, 'FET-1023 internal datasource')
  @ApiErrorEnvelope(409, 'FET-1021 a pending or processing job uses it; FET-1002 name in use')
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
  @ApiResponse({ status: 204 })
  @ApiErrorEnvelope(403, 'FET-1023 internal datasource')
  @ApiErrorEnvelope(409, 'FET-1021 a pending or processing job uses it')
  async remove(@Param('id', ID) id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.connections.remove(id, principal);
  }
}
