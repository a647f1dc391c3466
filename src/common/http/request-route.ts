import type { Request } from 'express';

/** The label of a request that matched no route (404 before any handler): one value, not one per path tried. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * A Nest module middleware applied to every path is mounted as a catch-all route of its own
 * (`{/*splat}`), which Express leaves on a request no controller matched: nestjs-pino mounts its
 * pino-http middleware that way. That is no route.
 */
const CATCH_ALL = /^\/?\{?\/?\*\w*\}?$/;

/**
 * The route template a request matched, e.g. `/v1/fetcher/:id`: what access lines, metrics and
 * spans are grouped by, so that ids in paths never become label values. Read it once the
 * response has finished; before routing it is not known yet.
 */
export function routeOf(request: Request): string {
  const path: unknown = request.route?.path;
  if (typeof path !== 'string' || CATCH_ALL.test(path)) return UNMATCHED_ROUTE;
  return `${request.baseUrl ?? ''}${path}`;
}
