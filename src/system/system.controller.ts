import { Controller, Get, Header, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MetricsService } from './metrics.service.js';
import { ReadinessService, type ReadinessReport } from './readiness.service.js';

@ApiTags('system')
@Controller()
export class SystemController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly readiness: ReadinessService,
    private readonly metrics: MetricsService,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness: the process is up' })
  health(): { status: string } {
    return { status: 'healthy' };
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: every dependency with status and latency; 503 when one is down or while draining' })
  async readyz(@Res({ passthrough: true }) response: Response): Promise<ReadinessReport & { role: string }> {
    const report = await this.readiness.report();
    if (report.status !== 'ready') response.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { ...report, role: this.config.role };
  }

  @Get('version')
  @ApiOperation({ summary: 'Running version' })
  version(): { version: string; requestDate: string } {
    return { version: this.config.version, requestDate: new Date().toISOString() };
  }

  @Get('metrics')
  @ApiExcludeEndpoint()
  @Header('Cache-Control', 'no-store')
  async prometheus(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}
