import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { routeOf, UNMATCHED_ROUTE } from '../http/request-route.js';
import { whenAnswered } from '../http/when-answered.js';
import { pathWithoutQuery } from './logger-options.js';
import { newRequestId, REQUEST_ID_HEADER, requestIdFor } from './request-id.js';

export const ACCESS_LINE_MESSAGE = 'request completed';

/** The fields of the one access line per request; nothing of the request but its method and path. */
export interface AccessLine {
  requestId: string;
  method?: string;
  route: string;
  path?: string;
  status: number;
  durationMs: number;
  /** The client went away before the answer was complete. */
  aborted?: true;
}

/**
 * Mounted first, before the body parser: every request gets its id (the caller's X-Request-Id
 * when sane, else a new one) echoed in the answer's header, and one access line once the
 * answer is finished, whatever refused it on the way (a parser error, a body limit, a 404).
 */
export function accessLogMiddleware(): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = performance.now();
    const requestId = requestIdFor(request.headers['x-request-id']);
    // pino-http takes it from here, so lines logged while handling the request carry the same id.
    request.id = requestId;
    response.setHeader(REQUEST_ID_HEADER, requestId);
    whenAnswered(response, (finished) =>
      writeAccessLine({
        requestId,
        method: request.method,
        route: routeOf(request),
        path: pathWithoutQuery(request.originalUrl),
        status: response.statusCode,
        durationMs: elapsedMs(started),
        ...(finished ? {} : { aborted: true as const }),
      }),
    );
    next();
  };
}

/**
 * A request Node's HTTP parser refused never reaches Express (client-error.handler.ts answers it
 * on the socket): it still gets an id for its answer and an access line, without method or path,
 * which are exactly what could not be read.
 */
export function logRefusedRequest(status: number): string {
  const requestId = newRequestId();
  writeAccessLine({ requestId, route: UNMATCHED_ROUTE, status, durationMs: 0 });
  return requestId;
}

/** 5xx at error, everything else (4xx included: the caller's mistake, not ours) at info. */
function writeAccessLine(line: AccessLine): void {
  const logger = PinoLogger.root;
  if (!logger) return;
  if (line.status >= 500) logger.error(line, ACCESS_LINE_MESSAGE);
  else logger.info(line, ACCESS_LINE_MESSAGE);
}

function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
