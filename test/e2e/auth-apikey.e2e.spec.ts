import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRoute, documentedV1Routes, OPEN_ROUTES, bearer, type RouteCall } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { unsecuredToken } from '../helpers/jwks-server.js';
import { TEST_PG, useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

/**
 * AUTH_MODE=apikey through HTTP, on two replicas sharing one PostgreSQL store: every /v1 route
 * refuses a caller without a valid key, operators manage product keys, a revocation holds on the
 * other replica at once, and only key hashes ever reach the store.
 */
describe('AUTH_MODE=apikey', () => {
  const store = useTempDatabase('e2e_apikey_store');
  let a: EmbeddedFetcher;
  let b: EmbeddedFetcher;
  let routes: RouteCall[];

  beforeAll(async () => {
    const env = {
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: `${ADMIN_KEY},${randomBytes(24).toString('base64url')}`,
      DATABASE_URL: store().url,
      // Every kind of bad key on every route, from one address: more than the default limit of 60
      // failures a minute, whose 429 test/e2e/auth-failures.e2e.spec.ts covers.
      AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
    };
    a = await startEmbeddedFetcher(env);
    b = await startEmbeddedFetcher(env);
    routes = await documentedV1Routes(a.http);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const issue = async (productName: string, name = 'test key') => {
    const response = await a.http.post('/v1/management/api-keys').set(bearer(ADMIN_KEY)).send({ productName, name });
    expect(response.status).toBe(201);
    return response.body as { id: string; key: string; productName: string; name: string; createdAt: string };
  };

  it('documents every protected route, key management included', () => {
    const documented = new Set(routes.map((route) => `${route.method} ${route.documented}`));
    for (const route of [
      'post /v1/management/api-keys',
      'get /v1/management/api-keys',
      'delete /v1/management/api-keys/{id}',
      'post /v1/fetcher',
      'get /v1/fetcher/{id}',
      'post /v1/management/connections',
    ]) {
      expect(documented).toContain(route);
    }
    expect(routes.length).toBeGreaterThanOrEqual(14);
  });

  it.each([
    ['no credential', undefined],
    ['an unknown key', `fet_${randomBytes(32).toString('base64url')}`],
    ['a key of the wrong shape', 'not-a-key'],
    ['an alg:none token', unsecuredToken({ claims: { roles: ['fetcher:admin'] } })],
  ])('answers 401 with a Bearer challenge on every /v1 route for %s', async (_, credential) => {
    for (const route of routes) {
      const response = await callRoute(a.http, route, credential);
      expect(response.status, `${route.method} ${route.documented}`).toBe(401);
      expect(response.body).toMatchObject({ code: 'FET-0010', title: 'Unauthorized' });
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="fetcher"/);
    }
  });

  it('answers 401 to an Authorization header that is not a bearer credential', async () => {
    const response = await a.http
      .get('/v1/management/connections')
      .set('Authorization', `Basic ${Buffer.from(`x:${ADMIN_KEY}`).toString('base64')}`);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('keeps the open routes open without a credential', async () => {
    for (const path of OPEN_ROUTES) {
      const response = await a.http.get(path);
      expect(response.status, path).toBeLessThan(400);
    }
  });

  it('issues a product key shown once, lists keys without key material, and stores only the hash', async () => {
    const created = await issue('Reporter', 'reporting service');
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^fet_[A-Za-z0-9_-]{43}$/),
      productName: 'reporter',
      name: 'reporting service',
      createdAt: expect.any(String),
      createdBy: 'admin-key:1',
    });
    const listed = await a.http.get('/v1/management/api-keys?productName=reporter&limit=100').set(bearer(ADMIN_KEY));
    expect(listed.status).toBe(200);
    const entry = listed.body.items.find((item: { id: string }) => item.id === created.id);
    expect(entry).toEqual({
      id: created.id,
      productName: 'reporter',
      name: 'reporting service',
      createdAt: created.createdAt,
      createdBy: 'admin-key:1',
    });
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    expect(JSON.stringify(listed.body)).not.toContain(created.key.slice(4, 20));

    const { rows } = await store().query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [created.id]);
    expect(rows[0].key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    const { stdout } = await promisify(execFile)(
      'pg_dump',
      ['-h', TEST_PG.host, '-p', String(TEST_PG.port), '-U', TEST_PG.user, '--data-only', store().name],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, PGPASSWORD: TEST_PG.password },
      },
    );
    expect(stdout).toContain(rows[0].key_hash);
    expect(stdout).not.toContain(created.key);
    expect(stdout).not.toContain(created.key.slice(4));
    expect(stdout).not.toContain(ADMIN_KEY);
  });

  it('lets only operator keys manage keys', async () => {
    const product = await issue('reporter');
    const asProduct = [
      await a.http.post('/v1/management/api-keys').set(bearer(product.key)).send({ productName: 'reporter', name: 'escalation' }),
      await a.http.get('/v1/management/api-keys').set(bearer(product.key)),
      await a.http.delete(`/v1/management/api-keys/${product.id}`).set(bearer(product.key)),
    ];
    for (const response of asProduct) {
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FET-0011');
    }
    expect((await a.http.get('/v1/management/connections').set(bearer(product.key))).status).toBe(200);
  });

  it('refuses bad key requests with 400s naming the field', async () => {
    const missing = await a.http.post('/v1/management/api-keys').set(bearer(ADMIN_KEY)).send({ name: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.fields).toHaveProperty('productName');
    const bad = await a.http
      .post('/v1/management/api-keys')
      .set(bearer(ADMIN_KEY))
      .send({ productName: 'no spaces', name: 'x', key: 'chosen' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.fields).sort()).toEqual(['key', 'productName']);
    expect((await a.http.get('/v1/management/api-keys?limit=101').set(bearer(ADMIN_KEY))).body.code).toBe('FET-0406');
    expect((await a.http.delete('/v1/management/api-keys/not-a-uuid').set(bearer(ADMIN_KEY))).body.code).toBe('FET-0404');
  });

  it('revokes a key on every replica within one second, and a second revoke is a 404', async () => {
    const created = await issue('reporter');
    expect((await b.http.get('/v1/management/connections').set(bearer(created.key))).status).toBe(200);
    expect((await a.http.delete(`/v1/management/api-keys/${created.id}`).set(bearer(ADMIN_KEY))).status).toBe(204);
    const revokedAt = Date.now();
    let status = 0;
    while (Date.now() - revokedAt < 1_000) {
      status = (await b.http.get('/v1/management/connections').set(bearer(created.key))).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect((await a.http.delete(`/v1/management/api-keys/${created.id}`).set(bearer(ADMIN_KEY))).status).toBe(404);
    const listed = await a.http.get('/v1/management/api-keys?limit=100').set(bearer(ADMIN_KEY));
    expect(listed.body.items.map((item: { id: string }) => item.id)).not.toContain(created.id);
  });

  it('shows readiness details to an operator key only', async () => {
    const anonymous = await a.http.get('/readyz');
    expect(anonymous.body.checks.database).toEqual({ status: 'up', latencyMs: expect.any(Number) });
    const product = await issue('reporter');
    expect((await a.http.get('/readyz').set(bearer(product.key))).body.checks.database).toEqual({
      status: 'up',
      latencyMs: expect.any(Number),
    });
    expect((await a.http.get('/readyz').set(bearer('garbage'))).status).toBe(200);
    expect((await a.http.get('/readyz').set(bearer(ADMIN_KEY))).body.checks.database).toMatchObject({ status: 'up', kind: 'postgres' });
  });

  it('answers 503, not 401, when the key store is unreachable, and accepts the key again once it is back', async () => {
    const product = await issue('reporter');
    const proxy = await startTcpProxy(TEST_PG.port, TEST_PG.host);
    const proxied = store().url.replace(`:${TEST_PG.port}/`, `:${proxy.port}/`);
    const replica = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY, DATABASE_URL: proxied });
    try {
      expect((await replica.http.get('/v1/management/connections').set(bearer(product.key))).status).toBe(200);
      proxy.cut();
      const down = await replica.http.get('/v1/management/connections').set(bearer(product.key));
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('FET-0003');
      proxy.restore();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
        status = (await replica.http.get('/v1/management/connections').set(bearer(product.key))).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
    } finally {
      await replica.close();
      await proxy.close();
    }
  });
});
