import { Controller, Get, HttpStatus, Inject, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags } from '../common/http/api-docs.js';
import type { Request, Response } from 'express';
import { Access, Allow, principalOf } from '../auth/access.decorators.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DependencyCheckDto, HealthDto, READY_EXAMPLES, ReadinessDto, UNREADY_EXAMPLES, VersionDto } from './dto/system-response.dto.js';
import { ReadinessService, type ReadinessReport } from './readiness.service.js';
import { Clock } from '../common/clock/clock.js';

/** Open to everyone, so probes need no credential; readiness details need an operator's. /metrics: metrics.controller.ts. */
@ApiTags('system')
@ApiExtraModels(DependencyCheckDto)
@Allow(Access.Public)
@Controller()
export class SystemController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly readiness: ReadinessService,
    private readonly clock: Clock,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiResponse({ status: 200, type: HealthDto, description: 'Always, while the process serves HTTP' })
  health(): { status: string } {
    return { status: 'healthy' };
  }

  @Get('readyz')
  @ApiOperation({
    summary: 'Readiness: every dependency with status and latency; 503 when one is down or while draining',
    description:
      'Each dependency’s kind and error message are shown only to an operator credential (any caller in AUTH_MODE=none); ' +
      'an invalid credential is not refused here, it just sees no details.',
  })
  @ApiResponse({ status: 200, type: ReadinessDto, description: 'Every dependency is up', examples: READY_EXAMPLES })
  @ApiResponse({
    status: 503,
    type: ReadinessDto,
    description: 'A dependency is down (unready), or the process is shutting down (draining)',
    examples: UNREADY_EXAMPLES,
  })
  async readyz(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<ReadinessReport & { role: string }> {
    const report = await this.readiness.report();
    if (report.status !== 'ready') response.status(HttpStatus.SERVICE_UNAVAILABLE);
    const detailed = principalOf(request)?.operator === true;
    return { ...(detailed ? report : withoutDetails(report)), role: this.config.role };
  }

  @Get('version')
  @ApiOperation({ summary: 'Running version' })
  @ApiResponse({ status: 200, type: VersionDto })
  version(): { version: string; requestDate: string } {
    return { version: this.config.version, requestDate: this.clock.now().toISOString() };
  }
}

/** Status and latency only: a driver's message can name a host, a user or a path. */
function withoutDetails(report: ReadinessReport): ReadinessReport {
  const checks = Object.fromEntries(
    Object.entries(report.checks).map(([name, check]) => [name, { status: check.status, latencyMs: check.latencyMs }]),
  );
  return { status: report.status, checks };
}
