import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Access, Allow } from '../auth/access.decorators.js';
import { ApiExcludeEndpoint } from '../common/http/api-docs.js';
import type { MetricsAccess } from '../config/metrics.config.js';
import { MetricsService } from './metrics.service.js';

/** GET /metrics on the API port; who may call it is METRICS_ACCESS, hence one controller per answer. */
abstract class MetricsEndpoint {
  // A property, not a constructor parameter: the two controllers below inherit it as they are.
  @Inject(MetricsService) private readonly metrics!: MetricsService;

  @Get('metrics')
  @ApiExcludeEndpoint()
  @Header('Cache-Control', 'no-store')
  async prometheus(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}

/** METRICS_ACCESS=public (the default): scrapers need no credential. */
@Allow(Access.Public)
@Controller()
export class PublicMetricsController extends MetricsEndpoint {}

/** METRICS_ACCESS=operator: 401 without a credential, 403 for a product's. */
@Allow(Access.Operator)
@Controller()
export class OperatorMetricsController extends MetricsEndpoint {}

export const metricsControllerFor = (access: MetricsAccess) =>
  access === 'operator' ? OperatorMetricsController : PublicMetricsController;
