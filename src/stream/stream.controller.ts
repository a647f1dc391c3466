import { LIMIT_QUERY, PAGE_QUERY } from '../common/http/query-docs.js';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth, ApiErrors } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { PutMarksDto, StreamDto, StreamMarkDto, StreamPageDto } from './dto/stream.dto.js';
import { parseListStreamsQuery, parseStreamQuery } from './dto/stream-query.js';
import { DELETE_STREAM_ANSWERS, GET_STREAM_ANSWERS, LIST_STREAMS_ANSWERS, PUT_MARKS_ANSWERS } from './stream.api-docs.js';
import { StreamNamePipe } from './stream-name.pipe.js';
import { StreamService } from './stream.service.js';

const SOURCE = {
  name: 'source',
  required: false,
  schema: { type: 'string', example: 'reporter' },
  description:
    'The product whose stream it is: required for an operator and for a credential of several products; a credential of one product defaults to it.',
};
const NAME = { name: 'name', example: 'invoices', description: 'The stream (`dataRequest.incremental.stream`), URL-encoded.' };
const PUT_MARKS_EXAMPLE = {
  replay: {
    summary: 'Read the invoices above id 100 again with the next job',
    value: { marks: { pg_source: { 'accounting.invoices': { column: 'id', type: 'integer', value: '100' } } } },
  },
};

/** Any principal; a product principal reads and changes only its own products' streams (docs/api.md, "Streams"). */
@ApiTags('streams')
@ApiAuth()
@Allow(Access.Principal)
@ApiExtraModels(StreamMarkDto)
@Controller('v1/fetcher/streams')
export class StreamController {
  constructor(private readonly streams: StreamService) {}

  @Get()
  @ApiOperation({ summary: 'List incremental streams and their marks; a product credential sees only its products’ streams' })
  @ApiQuery(PAGE_QUERY)
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery({ ...SOURCE, description: 'A product; one this credential does not act for lists nothing.' })
  @ApiResponse({ status: 200, type: StreamPageDto })
  @ApiErrors(Access.Principal, LIST_STREAMS_ANSWERS)
  list(@Query() query: Record<string, unknown>, @CurrentPrincipal() principal: Principal): Promise<StreamPageDto> {
    return this.streams.list(parseListStreamsQuery(query), principal);
  }

  @Get(':name')
  @ApiOperation({ summary: 'Get a stream: where each of its tables stands, and the job that last moved it' })
  @ApiParam(NAME)
  @ApiQuery(SOURCE)
  @ApiResponse({ status: 200, type: StreamDto })
  @ApiErrors(Access.Principal, GET_STREAM_ANSWERS)
  get(
    @Param('name', StreamNamePipe) name: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
  ): Promise<StreamDto> {
    return this.streams.get(name, parseStreamQuery(query), principal);
  }

  @Put(':name/marks')
  @ApiOperation({
    summary: 'Set a stream’s marks (a replay from an earlier value, a backfill), creating the stream',
    description: 'Replaces every mark of the stream; refused with 409 FET-1111 while a job of the stream is pending or processing.',
  })
  @ApiParam(NAME)
  @ApiQuery(SOURCE)
  @ApiBody({ type: PutMarksDto, examples: PUT_MARKS_EXAMPLE })
  @ApiResponse({ status: 200, type: StreamDto, description: 'The stream with its new marks' })
  @ApiErrors(Access.Principal, PUT_MARKS_ANSWERS)
  putMarks(
    @Param('name', StreamNamePipe) name: string,
    @Query() query: Record<string, unknown>,
    @Body() body: PutMarksDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<StreamDto> {
    return this.streams.putMarks(name, parseStreamQuery(query), body.marks, principal);
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Reset a stream: its next job reads every cursor table from its initial value or its start',
    description: 'Refused with 409 FET-1111 while a job of the stream is pending or processing.',
  })
  @ApiParam(NAME)
  @ApiQuery(SOURCE)
  @ApiResponse({ status: 204, description: 'Reset' })
  @ApiErrors(Access.Principal, DELETE_STREAM_ANSWERS)
  async remove(
    @Param('name', StreamNamePipe) name: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    await this.streams.remove(name, parseStreamQuery(query), principal);
  }
}
