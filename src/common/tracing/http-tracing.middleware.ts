import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { routeOf } from '../http/request-route.js';
import { whenAnswered } from '../http/when-answered.js';
import type { Tracing } from './tracing.js';

/**
 * One server span per request, named `<METHOD> <route>` once routing has told the route, and
 * active while the request is handled so spans started by its handler are children. An incoming
 * W3C `traceparent` makes it part of the caller's trace. Only 5xx answers mark it failed: a 4xx is
 * the caller's mistake, not the server's.
 *
 * A plain Express middleware (`app.use`), not a Nest one: Nest mounts those as catch-all routes,
 * which would leave their own `req.route` on a request no controller matched.
 */
export function httpTracingMiddleware(tracing: Tracing): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!tracing.enabled) return next();
    const open = tracing.startSpan(
      request.method,
      { [ATTR_HTTP_REQUEST_METHOD]: request.method },
      { kind: SpanKind.SERVER, remoteParent: request.headers },
    );
    whenAnswered(response, (finished) => {
      const route = routeOf(request);
      open.span.updateName(`${request.method} ${route}`);
      open.span.setAttribute(ATTR_HTTP_ROUTE, route);
      // Not finished: the client went away, and no status was sent.
      if (finished) {
        open.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
        if (response.statusCode >= 500) open.span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${response.statusCode}` });
      }
      open.end();
    });
    open.run(next);
  };
}
