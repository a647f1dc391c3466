import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import type { Response } from 'express';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { RateLimitedPerPrincipal } from '../auth/principal-rate-limit.guard.js';
import { FetCode } from '../common/errors/fet-code.js';
import { ApiErrorResponse } from '../common/http/api-error-response.js';
import { ErrorEnvelopeDto } from '../common/http/error-envelope.dto.js';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { CreateJobDto } from './dto/create-job.dto.js';
import { JobAcceptedDto, JobResponseDto } from './dto/job-response.dto.js';
import { JobPageDto, LIST_JOBS_BAD_REQUESTS } from './dto/job-summary.dto.js';
import { parseListJobsQuery } from './dto/list-jobs.query.js';
import { JobListService } from './job-list.service.js';
import { JobService } from './job.service.js';
import { JobStatus } from './job-status.js';

/** Any principal; a product principal submits for and reads only its own products' jobs. */
@ApiTags('jobs')
@ApiAuth(Access.Principal)
@Allow(Access.Principal)
@Controller('v1/fetcher')
export class JobController {
  constructor(
    private readonly jobs: JobService,
    private readonly lists: JobListService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Submit an extraction job; metadata.source must be a product this credential acts for' })
  @RateLimitedPerPrincipal('jobSubmissions')
  @ApiResponse({ status: 202, type: JobAcceptedDto, description: 'New job, queued' })
  @ApiResponse({ status: 200, type: JobAcceptedDto, description: 'Duplicate of a job created within the dedup window' })
  @ApiResponse({
    status: 400,
    type: ErrorEnvelopeDto,
    description:
      'FET-0001/0402 body, FET-0401 data request, FET-1061 limits, FET-1020 unknown datasource, FET-1014/1016 product, FET-1040 datasource down',
  })
  @ApiResponse({
    status: 409,
    type: ErrorEnvelopeDto,
    description: 'FET-1024 a connection has no password (cleared by a change of endpoint)',
  })
  @ApiResponse({ status: 503, type: ErrorEnvelopeDto, description: 'FET-0003 queue or store unavailable' })
  async create(
    @Body() body: CreateJobDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<JobAcceptedDto> {
    const outcome = await this.jobs.create(body, principal);
    response.status(outcome.duplicate ? HttpStatus.OK : HttpStatus.ACCEPTED);
    return outcome.body;
  }

  @Get()
  @ApiOperation({ summary: 'List jobs as summaries (offset pagination, filters); a product credential sees only its products’ jobs' })
  @ApiQuery({ name: 'page', required: false, example: 1 })
  @ApiQuery({ name: 'limit', required: false, example: 10, description: 'At most 100.' })
  @ApiQuery({ name: 'sortOrder', required: false, enum: ['asc', 'desc'], description: 'On createdAt (then id); desc by default.' })
  @ApiQuery({ name: 'status', required: false, enum: JobStatus })
  @ApiQuery({
    name: 'source',
    required: false,
    example: 'reporter',
    description: 'A product (metadata.source); one this credential does not act for lists nothing.',
  })
  @ApiQuery({ name: 'startDate', required: false, example: '2026-01-01', description: 'On createdAt, UTC.' })
  @ApiQuery({ name: 'endDate', required: false, example: '2026-01-31', description: 'Inclusive of the whole day, UTC.' })
  @ApiResponse({ status: 200, type: JobPageDto })
  @ApiResponse({
    status: 400,
    type: ErrorEnvelopeDto,
    description: 'FET-0405 unknown, repeated or invalid parameter, FET-0406 limit, FET-0407 sortOrder, FET-0408/0409 dates',
    examples: LIST_JOBS_BAD_REQUESTS,
  })
  @ApiResponse({
    status: 503,
    type: ErrorEnvelopeDto,
    description: 'FET-0003 store unavailable',
    example: { code: 'FET-0003', title: 'Service Unavailable', message: 'the job store is unavailable right now; please retry shortly' },
  })
  list(@Query() query: Record<string, unknown>, @CurrentPrincipal() principal: Principal): Promise<JobPageDto> {
    return this.lists.list(parseListJobsQuery(query), principal);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a job, its status and its result summary' })
  @ApiResponse({ status: 200, type: JobResponseDto })
  @ApiResponse({ status: 404, type: ErrorEnvelopeDto })
  get(@Param('id', new ParseIdPipe('job')) id: string, @CurrentPrincipal() principal: Principal): Promise<JobResponseDto> {
    return this.jobs.get(id, principal);
  }

  @Post(':id/cancel')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Cancel a pending or processing job',
    description:
      'The job fails at once with FET-1105 and one job.failed event; a worker running it stops within about a second and stores nothing. ' +
      'Cancelling a cancelled job answers the same again.',
  })
  @ApiResponse({ status: 200, type: JobResponseDto, description: 'The job, now failed with FET-1105' })
  @ApiErrorResponse(400, [[FetCode.InvalidPathId, 'invalid job id']])
  @ApiErrorResponse(404, [
    [
      FetCode.NotFound,
      'It was not possible to find the job entity during the requested flow. Please review the data provided in the request.',
    ],
  ])
  @ApiErrorResponse(409, [
    [
      FetCode.JobAlreadyFinished,
      'job 0190f3c2-0000-7000-8000-000000000000 is already completed; only a pending or processing job can be cancelled',
    ],
  ])
  @ApiErrorResponse(503, [
    [FetCode.ServiceUnavailable, 'job 0190f3c2-0000-7000-8000-000000000000 changed while being cancelled; retrying is safe'],
  ])
  cancel(@Param('id', new ParseIdPipe('job')) id: string, @CurrentPrincipal() principal: Principal): Promise<JobResponseDto> {
    return this.jobs.cancel(id, principal);
  }
}
