import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, callRoute, documentedV1Routes } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { generateSigningKey, signToken, type SigningKey } from '../helpers/jwks-server.js';
import { readLogLines } from '../helpers/log-lines.js';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';
import { ownLogFile } from '../helpers/test-log-file.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const LIMIT = 5;
const unknownKey = () => `fet_${randomBytes(32).toString('base64url')}`;
const scrape = async (fetcher: EmbeddedFetcher) => parsePrometheusText((await fetcher.http.get('/metrics')).text);

/**
 * Failed authentications, through HTTP: counted, logged once a minute per client address without
 * the credential, and, past AUTH_FAILURE_LIMIT_PER_MINUTE, answered 429 on every protected route
 * before the credential is looked at, while public routes keep answering.
 */
describe('failed authentications (AUTH_MODE=apikey, AUTH_FAILURE_LIMIT_PER_MINUTE=5)', () => {
  const log = ownLogFile();
  let fetcher: EmbeddedFetcher;
  const keys = [unknownKey(), unknownKey()];
  /** Answers 429 so far to a request whose credential was never looked at. */
  let refusedUnread = 0;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: ADMIN_KEY,
      AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT),
      LOG_FILE: log.file,
      LOG_LEVEL: 'log',
    });
  });
  afterAll(async () => {
    await fetcher?.close();
    log.remove();
  });

  it('answers 401 up to the limit, then 429 FET-1070 with Retry-After, even to an operator key; no credential is still 401', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i += 1) statuses.push((await fetcher.http.get('/v1/fetcher').set(bearer(keys[i % 2]))).status);
    expect(statuses).toEqual(new Array(LIMIT).fill(401));
    const limited = await fetcher.http.get('/v1/fetcher').set(bearer(keys[0]));
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'FET-1070', title: 'Rate Limit Exceeded' });
    expect(limited.body.message).toMatch(/^Failed authentication limit of 5 per minute reached\. Try again in \d+ seconds\.$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(55);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await fetcher.http.get('/v1/management/connections').set(bearer(ADMIN_KEY))).status).toBe(429);
    expect((await fetcher.http.get('/v1/fetcher').set('Authorization', 'Basic eDp5')).status).toBe(429);
    refusedUnread += 2;
    expect((await fetcher.http.get('/v1/fetcher')).status).toBe(401);
  });

  it('answers every protected route 429 for that address, and cannot be dodged by writing X-Forwarded-For (TRUST_PROXY unset)', async () => {
    for (const route of await documentedV1Routes(fetcher.http)) {
      const response = await callRoute(fetcher.http, route, keys[1]);
      expect(response.status, `${route.method} ${route.documented}`).toBe(429);
      expect(response.body.code).toBe('FET-1070');
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      refusedUnread += 1;
    }
    const spoofed = await fetcher.http.get('/v1/fetcher').set(bearer(ADMIN_KEY)).set('X-Forwarded-For', '198.51.100.23');
    expect(spoofed.status).toBe(429);
    refusedUnread += 1;
  });

  it('keeps the public routes open to it, without the operator details its credential would show', async () => {
    expect((await fetcher.http.get('/health').set(bearer(ADMIN_KEY))).status).toBe(200);
    const readiness = await fetcher.http.get('/readyz').set(bearer(ADMIN_KEY));
    expect(readiness.status).toBe(200);
    expect(readiness.body.checks.database).not.toHaveProperty('kind');
  });

  it('counts the failures by reason and the requests refused unread (the public routes refused nothing)', async () => {
    const samples = await scrape(fetcher);
    expect(valueOf(samples, 'fetcher_auth_failures_total', { method: 'apikey', reason: 'unknown_key' })).toBe(LIMIT + 1);
    expect(refusedUnread).toBeGreaterThan(20);
    expect(valueOf(samples, 'fetcher_auth_throttled_total', { method: 'apikey' })).toBe(refusedUnread);
  });

  it('logs the client once for the minute, and when it was blocked, never with the credential', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = readLogLines(log.file).filter((line) => line.context === 'Auth');
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^authentication failed from 127\.0\.0\.1 \(apikey: unknown_key\) on GET \/v1\/fetcher; /),
      'client 127.0.0.1 had 5 failed authentications within a minute: its requests with a credential are answered 429 for 60 s',
    ]);
    expect(lines[0]).toMatchObject({
      level: 40,
      client: '127.0.0.1',
      authMethod: 'apikey',
      reason: 'unknown_key',
      route: 'GET /v1/fetcher',
    });
    const text = readFileSync(log.file, 'utf8');
    for (const secret of [...keys, ADMIN_KEY]) expect(text).not.toContain(secret.slice(4, 20));
  });
});

describe('failed authentications behind a proxy (TRUST_PROXY=loopback)', () => {
  let fetcher: EmbeddedFetcher;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: ADMIN_KEY,
      AUTH_FAILURE_LIMIT_PER_MINUTE: '2',
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(async () => fetcher?.close());

  it('counts each client the proxy names on its own', async () => {
    const from = (client: string, key: string) => fetcher.http.get('/v1/fetcher').set(bearer(key)).set('X-Forwarded-For', client);
    const bad = unknownKey();
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await from('203.0.113.7', bad)).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await from('203.0.113.7', ADMIN_KEY)).status).toBe(429);
    expect((await from('203.0.113.8', ADMIN_KEY)).status).toBe(200);
    // A client inside one IPv6 /64 is one client, whichever address it takes.
    expect((await from('2001:db8:1:2::1', bad)).status).toBe(401);
    expect((await from('2001:db8:1:2::2', bad)).status).toBe(401);
    expect((await from('2001:db8:1:2::3', bad)).status).toBe(429);
    expect((await from('2001:db8:1:3::1', ADMIN_KEY)).status).toBe(200);
  });
});

describe('failed authentications (AUTH_MODE=jwt)', () => {
  let fetcher: EmbeddedFetcher;
  let key: SigningKey;

  beforeAll(async () => {
    key = await generateSigningKey('ES256', 'k1');
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'jwt',
      AUTH_JWT_PUBLIC_KEY: key.publicKeyPem,
      AUTH_JWT_ISSUER: 'https://issuer.test',
      AUTH_JWT_AUDIENCE: 'fetcher',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '3',
    });
  });
  afterAll(async () => fetcher?.close());

  it('counts and limits invalid tokens the same way, and then refuses a valid one unread', async () => {
    const operator = await signToken(key, { claims: { roles: ['fetcher:admin'] } });
    expect((await fetcher.http.get('/v1/fetcher').set(bearer(operator))).status).toBe(200);
    const expired = await signToken(key, { expiresIn: -120 });
    const statuses = [];
    for (const token of ['not.a.jwt', expired, 'not.a.jwt', 'not.a.jwt']) {
      statuses.push((await fetcher.http.get('/v1/fetcher').set(bearer(token))).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await fetcher.http.get('/v1/fetcher').set(bearer(operator))).status).toBe(429);
    const samples = await scrape(fetcher);
    expect(valueOf(samples, 'fetcher_auth_failures_total', { method: 'jwt', reason: 'malformed' })).toBe(3);
    expect(valueOf(samples, 'fetcher_auth_failures_total', { method: 'jwt', reason: 'expired' })).toBe(1);
  });
});
