import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';

export interface RouteCall {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Path with every `{param}` replaced by a fresh UUID. */
  readonly path: string;
  /** As documented, e.g. `/v1/fetcher/{id}`, for messages. */
  readonly documented: string;
}

/** The routes that need no credential, whatever AUTH_MODE says. */
export const OPEN_ROUTES = ['/health', '/readyz', '/version', '/metrics', '/swagger', '/swagger-json'] as const;

/**
 * Every `/v1/*` operation the running app documents in Swagger. Taken from the document rather
 * than a list in the test, so a route added later is covered without anyone remembering to.
 */
export async function documentedV1Routes(http: TestAgent): Promise<RouteCall[]> {
  const document = await http.get('/swagger-json');
  if (document.status !== 200) throw new Error(`swagger-json answered ${document.status}`);
  const paths = document.body.paths as Record<string, Record<string, unknown>>;
  const routes: RouteCall[] = [];
  for (const [documented, operations] of Object.entries(paths)) {
    if (!documented.startsWith('/v1/')) continue;
    for (const method of Object.keys(operations)) {
      if (method === 'get' || method === 'post' || method === 'put' || method === 'patch' || method === 'delete') {
        routes.push({ method, documented, path: documented.replace(/\{[^}]+\}/g, () => randomUUID()) });
      }
    }
  }
  return routes;
}

/** Calls the route with an optional bearer credential and, for writes, an empty JSON body. */
export function callRoute(http: TestAgent, route: RouteCall, credential?: string, headers: Record<string, string> = {}): Promise<Response> {
  let request = http[route.method](route.path);
  for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
  if (credential !== undefined) request = request.set('Authorization', `Bearer ${credential}`);
  return route.method === 'post' || route.method === 'put' || route.method === 'patch' ? request.send({}) : request;
}

export const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

/** Requests that all carry one bearer credential: `as(key).get(path)`. */
export function withBearer(http: TestAgent, credential: string) {
  return {
    get: (path: string) => http.get(path).set(bearer(credential)),
    post: (path: string, body: object = {}) => http.post(path).set(bearer(credential)).send(body),
    put: (path: string, body: object) => http.put(path).set(bearer(credential)).send(body),
    patch: (path: string, body: object) => http.patch(path).set(bearer(credential)).send(body),
    delete: (path: string) => http.delete(path).set(bearer(credential)),
  };
}
