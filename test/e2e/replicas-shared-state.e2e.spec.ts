import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/**
 * Two API replicas sharing PostgreSQL and Redis, as a scaled-out deployment runs: the connection
 * test rate limit and the schema cache are shared through Redis.
 */
describe('replicas share rate limits and the schema cache through Redis', () => {
  let store: TempDatabase;
  let source: TempDatabase;
  let a: EmbeddedFetcher;
  let b: EmbeddedFetcher;

  beforeAll(async () => {
    [store, source] = await Promise.all([createTempDatabase('e2e_replica_store'), createTempDatabase('e2e_replica_source')]);
    await source.query('CREATE TABLE accounts (id int PRIMARY KEY, email text)');
    const env = { DATABASE_URL: store.url, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: `fetcher-test-${randomUUID().slice(0, 8)}` };
    a = await startEmbeddedFetcher(env);
    b = await startEmbeddedFetcher(env);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([store?.drop(), source?.drop()]);
  });

  it('counts /test calls of one connection across replicas: the 11th in a minute is refused on either', async () => {
    const { id } = await registerPostgres(a.http, source, { configName: `pg_${randomUUID().slice(0, 8)}`, product: 'reporter' });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) statuses.push((await (i % 2 === 0 ? a : b).http.post(`/v1/management/connections/${id}/test`)).status);
    expect(statuses).toEqual(new Array(10).fill(200));
    for (const replica of [a, b]) {
      const refused = await replica.http.post(`/v1/management/connections/${id}/test`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('shares cached schemas, and a PATCH on one replica is seen by the other', async () => {
    const { id, configName } = await registerPostgres(a.http, source, {
      configName: `pg_${randomUUID().slice(0, 8)}`,
      product: 'reporter',
    });
    const validate = (replica: EmbeddedFetcher, field: string) =>
      replica.http.post('/v1/management/connections/validate-schema').send({ mappedFields: { [configName]: { accounts: [field] } } });
    expect((await validate(a, 'id')).status).toBe(200);
    await source.query('ALTER TABLE accounts ADD COLUMN nickname text');
    // B never discovered this connection: a miss would see the new column; the shared entry does not.
    expect((await validate(b, 'nickname')).status).toBe(422);
    expect((await a.http.patch(`/v1/management/connections/${id}`).send({ metadata: { v: 2 } })).status).toBe(200);
    expect((await validate(b, 'nickname')).status).toBe(200);
  });
});
