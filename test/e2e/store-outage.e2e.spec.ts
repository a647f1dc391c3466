import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { TEST_PG, useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Operation {
  parameters?: Array<{ name: string; in: string; example?: string; schema?: { example?: string } }>;
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: Record<string, unknown> }> }> }>;
}
type Paths = Record<string, Partial<Record<Method, Operation>>>;

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const STORE_DOWN = {
  code: 'FET-0003',
  title: 'Service Unavailable',
  message: 'the job store is unavailable right now; please retry shortly',
};

/**
 * A request each route accepts up to its first read of the store: a fresh UUID for `{id}`, the
 * example of another path parameter and of `source` (a stream's product), the header's example,
 * the first request-body example of the document (validate-schema takes the job example's
 * mappedFields), so that what answers is the store being down.
 */
function validRequest(fetcher: EmbeddedFetcher, paths: Paths, path: string, method: Method, operation: Operation) {
  const example = (parameter: { example?: string; schema?: { example?: string } }) => parameter.example ?? parameter.schema?.example;
  let target = path.replace('{id}', randomUUID());
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path' && example(parameter)) target = target.replace(`{${parameter.name}}`, example(parameter) as string);
  }
  let request = fetcher.http[method](target);
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'header' && example(parameter)) request = request.set(parameter.name, example(parameter) as string);
    if (parameter.in === 'query' && parameter.name === 'source' && path.includes('{name}')) {
      request = request.query({ source: example(parameter) as string });
    }
  }
  if (method !== 'post' && method !== 'put' && method !== 'patch') return request;
  const examples = (op: Operation | undefined) => Object.values(op?.requestBody?.content['application/json']?.examples ?? {});
  if (path.endsWith('/validate-schema')) {
    const [job] = examples(paths['/v1/fetcher'].post) as Array<{ value: { dataRequest: { mappedFields: unknown } } }>;
    return request.send({ mappedFields: job.value.dataRequest.mappedFields });
  }
  const [body] = examples(operation);
  if (path.endsWith('/api-keys')) return request.send({ productName: 'reporter', name: 'outage' });
  return request.send((body?.value ?? {}) as object);
}

/**
 * The job store unreachable (PostgreSQL behind a proxy that is cut): every documented /v1 route
 * answers 503 FET-0003 with the documented example, never a 500 or a hanging request. In
 * AUTH_MODE=none each route gets as far as its own first read; with API keys the guard's lookup
 * is that read.
 */
describe('every route while the job store is unreachable', () => {
  const store = useTempDatabase('e2e_store_outage');
  let proxy: TcpProxy;
  let open: EmbeddedFetcher;
  let keyed: EmbeddedFetcher;
  let paths: Paths;

  beforeAll(async () => {
    proxy = await startTcpProxy(TEST_PG.port, TEST_PG.host);
    const proxied = store().url.replace(`:${TEST_PG.port}/`, `:${proxy.port}/`);
    open = await startEmbeddedFetcher({ DATABASE_URL: proxied });
    keyed = await startEmbeddedFetcher({ DATABASE_URL: proxied, AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY });
    paths = (await keyed.http.get('/swagger-json')).body.paths as Paths;
  });
  afterAll(async () => {
    proxy?.restore();
    await Promise.all([open?.close(), keyed?.close()]);
    await proxy?.close();
  });

  const operations = () =>
    Object.entries(paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, byMethod]) =>
        (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((method) => {
          const operation = byMethod[method];
          return operation ? [{ path, method, operation }] : [];
        }),
      );

  it('answers 503 FET-0003 on every route, as each documents it, and serves again once the store is back', async () => {
    expect(operations().length).toBeGreaterThanOrEqual(19);
    proxy.cut();
    try {
      for (const { path, method, operation } of operations()) {
        const where = `${method} ${path}`;
        const documented = operation.responses['503']?.content?.['application/json']?.examples?.['FET-0003 store']?.value;
        expect(documented, where).toEqual(STORE_DOWN);
        // Key management exists only with API keys; everything else is asked without a credential.
        const response = path.startsWith('/v1/management/api-keys')
          ? await validRequest(keyed, paths, path, method, operation).set(bearer(ADMIN_KEY))
          : await validRequest(open, paths, path, method, operation);
        expect({ status: response.status, body: response.body }, where).toEqual({ status: 503, body: STORE_DOWN });
      }
    } finally {
      proxy.restore();
    }
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
      status = (await open.http.get('/v1/fetcher')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
