import { Body, Controller, Get, HttpStatus, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, Allow, CurrentPrincipal } from '../auth/access.decorators.js';
import { ApiAuth } from '../auth/api-auth.decorator.js';
import type { Principal } from '../auth/principal.js';
import { RateLimitedPerPrincipal } from '../auth/principal-rate-limit.guard.js';
import { ErrorEnvelopeDto } from '../common/http/error-envelope.dto.js';
import { ParseIdPipe } from '../common/http/parse-id.pipe.js';
import { CreateJobDto } from './dto/create-job.dto.js';
import { JobAcceptedDto, JobResponseDto } from './dto/job-response.dto.js';
import { JobService } from './job.service.js';

/** Any principal; a product principal submits for and reads only its own products' jobs. */
@ApiTags('jobs')
@ApiAuth(Access.Principal)
@Allow(Access.Principal)
@Controller('v1/fetcher')
export class JobController {
  constructor(private readonly jobs: JobService) {}

  @Post()
  @ApiOperation({ summary: 'Submit an extraction job; metadata.source must be a product this credential acts for' })
  @RateLimitedPerPrincipal('jobSubmissions')
  @ApiResponse({ status: 202, type: JobAcceptedDto, description: 'New job, queued' })
  @ApiResponse({ status: 200, type: JobAcceptedDto, description: 'Duplicate of a job created within the dedup window' })
  @ApiResponse({
    status: 400,
    type: ErrorEnvelopeDto,
    description: 'FET-0001/0402 body, FET-0401 data request, FET-1061 limits, FET-1020 unknown datasource, FET-1014/1016 product, FET-1040 datasource down',
  })
  @ApiResponse({ status: 409, type: ErrorEnvelopeDto, description: 'FET-1024 a connection has no password (cleared by a change of endpoint)' })
  @ApiResponse({ status: 503, type: ErrorEnvelopeDto, description: 'FET-0003 queue or store unavailable' })
  async create(@Body() body: CreateJobDto, @CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) response: Response): Promise<JobAcceptedDto> {
    const outcome = await this.jobs.create(body, principal);
    response.status(outcome.duplicate ? HttpStatus.OK : HttpStatus.ACCEPTED);
    return outcome.body;
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a job, its status and its result summary' })
  @ApiResponse({ status: 200, type: JobResponseDto })
  @ApiResponse({ status: 404, type: ErrorEnvelopeDto })
  get(@Param('id', new ParseIdPipe('job')) id: string, @CurrentPrincipal() principal: Principal): Promise<JobResponseDto> {
    return this.jobs.get(id, principal);
  }
}
