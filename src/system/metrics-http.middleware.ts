import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { routeOf } from '../common/http/request-route.js';
import { MetricsService } from './metrics.service.js';

/**
 * Counts and times every request, those the body parser or the limits refuse included, by route template (never the raw
 * path: ids would make a series per job). The route is known only once the request has been
 * routed, so the sample is taken when the response ends: `finish` when it was sent in full,
 * `close` without `finish` when the client went away first.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.httpServed(request.method, routeOf(request), response.writableFinished ? response.statusCode : undefined, seconds);
    };
    response.once('finish', record);
    response.once('close', record);
    next();
  }
}
