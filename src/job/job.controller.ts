import { dateQuery, LIMIT_QUERY, PAGE_QUERY } from '../common/http/query-docs.js';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import type { Response } from 'express';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth, ApiErrors } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { RateLimitedPerPrincipal } from '../auth/principal-rate-limit.guard.js';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { CreateJobDto, CREATE_JOB_EXAMPLES } from './dto/create-job.dto.js';
import { TableRangeDto } from './dto/job-incremental.dto.js';
import { JobAcceptedDto, JobResponseDto, TableProgressDto } from './dto/job-response.dto.js';
import { JobPageDto } from './dto/job-summary.dto.js';
import { parseListJobsQuery } from './dto/list-jobs.query.js';
import {
  CANCEL_ANSWERS,
  GET_JOB_ANSWERS,
  JOB_ACCEPTED_EXAMPLE,
  JOB_DUPLICATE_EXAMPLE,
  LIST_JOBS_ANSWERS,
  SUBMIT_ANSWERS,
} from './job.api-docs.js';
import { JobListService } from './job-list.service.js';
import { JobService } from './job.service.js';
import { JobStatus } from './job-status.js';

/** Any principal; a product principal submits for and reads only its own products' jobs. */
@ApiTags('jobs')
@ApiAuth()
@ApiExtraModels(TableRangeDto, TableProgressDto)
@Allow(Access.Principal)
@Controller('v1/fetcher')
export class JobController {
  constructor(
    private readonly jobs: JobService,
    private readonly lists: JobListService,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Submit an extraction job; metadata.source must be a product this credential acts for',
    description:
      'The pre-filled body is the README walkthrough’s job: it runs as it is once the walkthrough’s connection pg_source is registered. ' +
      'The same request again within DEDUP_WINDOW_SECONDS answers 200 with the existing job.',
  })
  @RateLimitedPerPrincipal('jobSubmissions')
  @ApiBody({ type: CreateJobDto, examples: CREATE_JOB_EXAMPLES })
  @ApiResponse({ status: 202, type: JobAcceptedDto, description: 'New job, queued', example: JOB_ACCEPTED_EXAMPLE })
  @ApiResponse({
    status: 200,
    type: JobAcceptedDto,
    description: 'Duplicate of a job created within the dedup window: that job, with its current status; nothing new is queued',
    example: JOB_DUPLICATE_EXAMPLE,
  })
  @ApiErrors(Access.Principal, SUBMIT_ANSWERS)
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
  @ApiQuery(PAGE_QUERY)
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery({ name: 'sortOrder', required: false, enum: ['asc', 'desc'], description: 'On createdAt (then id); desc by default.' })
  @ApiQuery({ name: 'status', required: false, enum: JobStatus })
  @ApiQuery({
    name: 'source',
    required: false,
    schema: { type: 'string', example: 'reporter' },
    description: 'A product (metadata.source); one this credential does not act for lists nothing.',
  })
  @ApiQuery(dateQuery('startDate', 'On createdAt, UTC.'))
  @ApiQuery(dateQuery('endDate', 'Inclusive of the whole day, UTC.'))
  @ApiResponse({ status: 200, type: JobPageDto })
  @ApiErrors(Access.Principal, LIST_JOBS_ANSWERS)
  list(@Query() query: Record<string, unknown>, @CurrentPrincipal() principal: Principal): Promise<JobPageDto> {
    return this.lists.list(parseListJobsQuery(query), principal);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a job, its status and its result summary' })
  @ApiResponse({ status: 200, type: JobResponseDto })
  @ApiErrors(Access.Principal, GET_JOB_ANSWERS)
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
  @ApiErrors(Access.Principal, CANCEL_ANSWERS)
  cancel(@Param('id', new ParseIdPipe('job')) id: string, @CurrentPrincipal() principal: Principal): Promise<JobResponseDto> {
    return this.jobs.cancel(id, principal);
  }
}
