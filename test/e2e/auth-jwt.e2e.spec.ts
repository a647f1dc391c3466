import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, callRoute, documentedV1Routes, OPEN_ROUTES, type RouteCall } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { generateSigningKey, signToken, startJwksServer, tamperSignature, type JwksServer } from '../helpers/jwks-server.js';

/**
 * AUTH_MODE=jwt through HTTP, with a JWKS the test serves on loopback from keys it generates:
 * every /v1 route refuses a missing, forged, expired, mis-addressed or unsigned token; the
 * products and operator role come from the token's claims.
 */
describe('AUTH_MODE=jwt', () => {
  let jwks: JwksServer;
  let fetcher: EmbeddedFetcher;
  let routes: RouteCall[];

  beforeAll(async () => {
    jwks = await startJwksServer();
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'jwt',
      AUTH_JWKS_URL: jwks.url,
      AUTH_JWT_ISSUER: jwks.issuer,
      AUTH_JWT_AUDIENCE: jwks.audience,
      // Every kind of bad token on every route, from one address: more than the default limit of
      // 60 failures a minute, whose 429 test/e2e/auth-failures.e2e.spec.ts covers.
      AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
    });
    routes = await documentedV1Routes(fetcher.http);
  });
  afterAll(async () => {
    await fetcher?.close();
    await jwks?.close();
  });

  const operatorToken = () => jwks.sign({ sub: 'ops', claims: { roles: ['fetcher:admin'] } });

  it('documents the connection and job routes, and no key management (API keys are not a credential here)', () => {
    const documented = routes.map((route) => route.documented);
    expect(documented).toEqual(
      expect.arrayContaining(['/v1/management/connections', '/v1/management/connections/{id}', '/v1/fetcher', '/v1/fetcher/{id}']),
    );
    expect(documented.some((path) => path.startsWith('/v1/management/api-keys'))).toBe(false);
  });

  it('answers 401 on every /v1 route without a token and with every kind of bad token', async () => {
    const stranger = await generateSigningKey('RS256', jwks.keys[0].kid);
    const bad: Array<[string, string | undefined]> = [
      ['no credential', undefined],
      ['garbage', 'not.a.jwt'],
      ['expired', await jwks.sign({ expiresIn: -120, claims: { roles: ['fetcher:admin'] } })],
      ['not yet valid', await jwks.sign({ notBefore: 600, claims: { roles: ['fetcher:admin'] } })],
      ['wrong audience', await jwks.sign({ aud: 'someone-else', claims: { roles: ['fetcher:admin'] } })],
      ['wrong issuer', await jwks.sign({ iss: 'https://evil.test', claims: { roles: ['fetcher:admin'] } })],
      ['alg none', jwks.unsecuredToken({ claims: { roles: ['fetcher:admin'] } })],
      ['HS256 keyed with the public key', jwks.hmacTokenWithPublicKey({ claims: { roles: ['fetcher:admin'] } })],
      ['a tampered signature', tamperSignature(await operatorToken())],
      [
        'signed by a key the issuer never published',
        await signToken(stranger, { iss: jwks.issuer, aud: jwks.audience, sub: 'x', claims: { roles: ['fetcher:admin'] } }),
      ],
    ];
    for (const [label, token] of bad) {
      for (const route of routes) {
        const response = await callRoute(fetcher.http, route, token);
        expect(response.status, `${label}: ${route.method} ${route.documented}`).toBe(401);
        expect(response.body.code).toBe('FET-0010');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
        if (token !== undefined) expect(JSON.stringify(response.body)).not.toContain(token);
      }
    }
  });

  it('keeps the open routes open, with or without a token', async () => {
    for (const path of OPEN_ROUTES) {
      expect((await fetcher.http.get(path)).status, path).toBeLessThan(400);
      expect((await fetcher.http.get(path).set(bearer('not.a.jwt'))).status, path).toBeLessThan(400);
    }
  });

  it('takes the operator from the roles claim and the products from the products claim', async () => {
    const operator = await fetcher.http.get('/v1/management/connections/unassigned').set(bearer(await operatorToken()));
    expect(operator.status).toBe(200);
    const product = await jwks.sign({ sub: 'svc-reporter', claims: { products: 'Reporter' } });
    const refused = await fetcher.http.get('/v1/management/connections/unassigned').set(bearer(product));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FET-0011');
    expect((await fetcher.http.get('/v1/management/connections').set(bearer(product))).status).toBe(200);
    const other = await fetcher.http.get('/v1/management/connections').set(bearer(product)).set('X-Product-Name', 'billing');
    expect(other.status).toBe(403);
    const job = await fetcher.http
      .post('/v1/fetcher')
      .set(bearer(product))
      .send({ dataRequest: { mappedFields: { nothing_here: { t: ['id'] } } }, metadata: { source: 'billing' } });
    expect(job.status).toBe(403);
    expect(job.body.message).toContain("'billing'");
  });

  it('asks a token of several products to name one in X-Product-Name, and lists all of them without it', async () => {
    const both = await jwks.sign({ sub: 'svc-both', claims: { products: ['alpha', 'beta'] } });
    const body = (configName: string) =>
      pgConnectionBody({ host: 'db.example.com', port: 5432, name: 'x', user: 'u' }, { configName, password: 'p' });
    const unnamed = await fetcher.http
      .post('/v1/management/connections')
      .set(bearer(both))
      .send(body(`pg_${Date.now().toString(36)}a`));
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.code).toBe('FET-0403');
    expect(unnamed.body.message).toContain('several products (alpha, beta)');
    const created = await Promise.all(
      ['alpha', 'beta'].map((product, i) =>
        fetcher.http
          .post('/v1/management/connections')
          .set(bearer(both))
          .set('X-Product-Name', product)
          .send(body(`pg_${Date.now().toString(36)}${i}`)),
      ),
    );
    expect(created.map((response) => response.body.productName)).toEqual(['alpha', 'beta']);
    const listed = await fetcher.http.get('/v1/management/connections?limit=100').set(bearer(both));
    expect(new Set(listed.body.items.map((item: { productName: string }) => item.productName))).toEqual(new Set(['alpha', 'beta']));
    const onlyAlpha = await jwks.sign({ sub: 'svc-alpha', claims: { products: 'alpha' } });
    const alphaList = await fetcher.http.get('/v1/management/connections?limit=100').set(bearer(onlyAlpha));
    expect(alphaList.body.items.map((item: { productName: string }) => item.productName)).toEqual(['alpha']);

    const none = await jwks.sign({ sub: 'svc-none' });
    expect((await fetcher.http.get('/v1/management/connections').set(bearer(none))).body.total).toBe(0);
    const refused = await fetcher.http
      .post('/v1/management/connections')
      .set(bearer(none))
      .send(body(`pg_${Date.now().toString(36)}n`));
    expect(refused.status).toBe(403);
  });

  it('documents the bearer scheme and the 401 of every /v1 route in Swagger, and the 403 of operator routes', async () => {
    const document = (await fetcher.http.get('/swagger-json')).body;
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path.startsWith('/v1/')) {
          expect(operation.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
          // 403 only where the route refuses some principals: operators only, or a product named (docs/api.md).
          expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '503']));
        } else {
          expect(operation.security, `${method} ${path}`).toBeUndefined();
        }
      }
    }
    expect(Object.keys(document.paths['/v1/management/connections/unassigned'].get.responses)).toContain('403');
  });
});
