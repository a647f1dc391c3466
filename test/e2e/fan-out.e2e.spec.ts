import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { createTempDatabase, TEST_PG, type TempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const REDIS_URL = 'redis://127.0.0.1:6379';

async function issueKey(fetcher: EmbeddedFetcher, productName: string): Promise<string> {
  const response = await fetcher.http.post('/v1/management/api-keys').set(bearer(ADMIN)).send({ productName, name: 'fan-out' });
  expect(response.status).toBe(201);
  return response.body.key as string;
}

/** Deletes every Redis key under the test's queue prefix (BullMQ leaves its queue behind). */
async function dropRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

describe('no fan-out from one caller', () => {
  let store: TempDatabase;
  let source: TempDatabase;
  const prefix = `fetcher-test-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    [store, source] = await Promise.all([createTempDatabase('e2e_fanout_store'), createTempDatabase('e2e_fanout_source')]);
    await source.query('CREATE TABLE accounts (id int PRIMARY KEY, email text)');
  });
  afterAll(async () => {
    await Promise.all([store?.drop(), source?.drop()]);
    await dropRedisPrefix(prefix);
  });

  describe('per-principal limits, shared by replicas through Redis', () => {
    let a: EmbeddedFetcher;
    let b: EmbeddedFetcher;
    beforeAll(async () => {
      const env = {
        AUTH_MODE: 'apikey',
        AUTH_ADMIN_KEYS: ADMIN,
        DATABASE_URL: store.url,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        JOB_SUBMIT_RATE_LIMIT: '5',
        CONNECTION_TEST_PRINCIPAL_RATE_LIMIT: '3',
      };
      a = await startEmbeddedFetcher({ ...env, FETCHER_ROLE: 'manager' });
      b = await startEmbeddedFetcher({ ...env, FETCHER_ROLE: 'manager' });
    });
    afterAll(async () => Promise.all([a?.close(), b?.close()]));

    it('refuses the 6th job submission of a minute on either replica with 429 and Retry-After, and leaves other principals alone', async () => {
      const [alpha, beta] = await Promise.all([issueKey(a, 'alpha'), issueKey(a, 'beta')]);
      const submit = (replica: EmbeddedFetcher, key: string, product: string) =>
        replica.http
          .post('/v1/fetcher')
          .set(bearer(key))
          .send({
            dataRequest: { mappedFields: { not_registered: { t: ['id'] } } },
            metadata: { source: product, correlationId: randomUUID() },
          });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await submit(i % 2 === 0 ? a : b, alpha, 'alpha')).status);
      expect(statuses).toEqual([400, 400, 400, 400, 400]);
      for (const replica of [a, b]) {
        const refused = await submit(replica, alpha, 'alpha');
        expect(refused.status).toBe(429);
        expect(refused.body.code).toBe('FET-1070');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect((await submit(b, beta, 'beta')).status).toBe(400);
    });

    it('refuses a principal’s 4th connection test of a minute, across connections and replicas', async () => {
      const alpha = await issueKey(a, 'alpha');
      const ids: string[] = [];
      for (let i = 0; i < 2; i += 1) {
        const created = await a.http
          .post('/v1/management/connections')
          .set(bearer(alpha))
          .send(pgConnectionBody(source, { password: 'x' }));
        expect(created.status).toBe(201);
        ids.push(created.body.id);
      }
      const statuses = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await (i % 2 === 0 ? a : b).http.post(`/v1/management/connections/${ids[i % 2]}/test`).set(bearer(alpha))).status);
      expect(statuses).toEqual([200, 200, 200]);
      const refused = await b.http.post(`/v1/management/connections/${ids[1]}/test`).set(bearer(alpha));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('caps on connection tests open at once', () => {
    const GLOBAL_CAP = 4;
    const PER_HOST_CAP = 1;
    let manager: EmbeddedFetcher;
    let listeners: Array<TcpProxy & { host: string }>;
    let open = 0;
    let peak = 0;

    beforeAll(async () => {
      // Five hosts (loopback aliases), two connections on each: the global cap binds, and so does the per-host one.
      const onChange = (delta: number) => {
        open += delta;
        peak = Math.max(peak, open);
      };
      listeners = await Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          const host = `127.0.0.${11 + i}`;
          return Object.assign(await startTcpProxy(TEST_PG.port, TEST_PG.host, { listenHost: host, onChange }), { host });
        }),
      );
      manager = await startEmbeddedFetcher({
        AUTH_MODE: 'apikey',
        AUTH_ADMIN_KEYS: ADMIN,
        FETCHER_ROLE: 'manager',
        DATABASE_URL: store.url,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        JOB_SUBMIT_RATE_LIMIT: '1000',
        CONNECTION_TEST_MAX_CONCURRENCY: String(GLOBAL_CAP),
        CONNECTION_TEST_MAX_PER_HOST: String(PER_HOST_CAP),
        CONNECTION_TEST_TIMEOUT_MS: '30000',
        // Every test a fresh connect, so each of the 500 tests is a connection the caps must hold;
        // with reuse on, a pooled session's ping serves most of them (source-session-pool.e2e).
        SOURCE_POOL_MAX_IDLE: '0',
      });
    });
    afterAll(async () => {
      await manager?.close();
      await Promise.all((listeners ?? []).map((listener) => listener.close()));
    });

    it('50 submissions naming 10 connections each never hold more test connections than the caps', async () => {
      const key = await issueKey(manager, 'alpha');
      const configNames: string[] = [];
      for (const listener of listeners) {
        for (let i = 0; i < 2; i += 1) {
          const configName = `pg_${randomUUID().slice(0, 8)}`;
          const created = await manager.http
            .post('/v1/management/connections')
            .set(bearer(key))
            .send(
              pgConnectionBody(
                { host: listener.host, port: listener.port, name: source.name, user: source.user },
                { configName, password: 'x' },
              ),
            );
          expect(created.status).toBe(201);
          configNames.push(configName);
        }
      }
      const mappedFields = Object.fromEntries(configNames.map((name) => [name, { accounts: ['id'] }]));
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          manager.http
            .post('/v1/fetcher')
            .set(bearer(key))
            .send({ dataRequest: { mappedFields }, metadata: { source: 'alpha', correlationId: randomUUID() } }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(new Array(50).fill(202));
      expect(listeners.reduce((sum, listener) => sum + listener.total, 0)).toBe(500);
      expect(peak).toBeLessThanOrEqual(GLOBAL_CAP);
      expect(peak).toBeGreaterThan(1);
      for (const listener of listeners) expect(listener.peak).toBeLessThanOrEqual(PER_HOST_CAP);
    }, 120_000);
  });
});
