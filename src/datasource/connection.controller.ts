import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { ProductName } from '../common/http/product-name.decorator.js';
import { queryValidationPipe } from '../common/http/query-validation.pipe.js';
import { ErrorEnvelopeDto } from '../common/http/error-envelope.dto.js';
import { ConnectionService } from './connection.service.js';
import { ConnectionPageDto, ConnectionResponseDto } from './dto/connection-response.dto.js';
import { CreateConnectionDto } from './dto/create-connection.dto.js';
import { ListConnectionsQuery } from './dto/list-connections.query.js';

@ApiTags('connections')
@Controller('v1/management/connections')
export class ConnectionController {
  constructor(private readonly connections: ConnectionService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Register a database connection for a product' })
  @ApiHeader({ name: 'X-Product-Name', required: true, description: 'Owning product; stored lower-case.' })
  @ApiResponse({ status: 201, type: ConnectionResponseDto })
  @ApiResponse({ status: 400, type: ErrorEnvelopeDto, description: 'FET-0001/0402 invalid body, FET-0403 header, FET-0413 SSL mode' })
  @ApiResponse({ status: 409, type: ErrorEnvelopeDto, description: 'FET-1002 configName already in use' })
  create(@ProductName() productName: string, @Body() body: CreateConnectionDto): Promise<ConnectionResponseDto> {
    return this.connections.create(productName, body);
  }

  @Get()
  @ApiOperation({ summary: 'List connections (offset pagination)' })
  @ApiHeader({ name: 'X-Product-Name', required: false, description: 'Only this product’s connections.' })
  @ApiResponse({ status: 200, type: ConnectionPageDto })
  list(
    @ProductName({ optional: true }) productName: string | undefined,
    @Query(queryValidationPipe) query: ListConnectionsQuery,
  ): Promise<ConnectionPageDto> {
    return this.connections.list(productName, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one connection' })
  @ApiResponse({ status: 200, type: ConnectionResponseDto })
  @ApiResponse({ status: 404, type: ErrorEnvelopeDto })
  get(@Param('id', new ParseIdPipe('connection')) id: string): Promise<ConnectionResponseDto> {
    return this.connections.get(id);
  }
}
