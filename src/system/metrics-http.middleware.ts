import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { routeOf } from '../common/http/request-route.js';
import { whenAnswered } from '../common/http/when-answered.js';
import type { MetricsService } from './metrics.service.js';

/**
 * Counts and times every request, those the body parser or the limits refuse included, by route
 * template (never the raw path: ids would make a series per job), once the answer is over; a
 * client that went away first is counted as `aborted`.
 */
export function httpMetricsMiddleware(metrics: MetricsService): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    whenAnswered(response, (finished) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpServed(request.method, routeOf(request), finished ? response.statusCode : undefined, seconds);
    });
    next();
  };
}
