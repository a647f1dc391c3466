import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaCacheKey, serializeSnapshot } from '../../src/engine/cache/schema-cache.js';
import type { SchemaSnapshot, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { RedisSchemaCache } from '../../src/datasource/schema/redis-schema-cache.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function snapshot(columns: number): SchemaSnapshot {
  const table: TableInfo = {
    schema: 'public',
    name: 'accounts',
    key: 'accounts',
    columns: Array.from({ length: columns }, (_, i) => ({ name: `column_${i}`, dataType: 'text' })),
    primaryKey: [],
  };
  return { tables: new Map([['accounts', table]]) };
}

/** The Redis schema cache on the machine's Redis, each key unique to the run and deleted afterwards. */
describe('RedisSchemaCache bounds', () => {
  let redis: Redis;
  const keys: string[] = [];
  const key = () => {
    const made = schemaCacheKey(`test-${randomUUID()}`, 1, ['public']);
    keys.push(made);
    return made;
  };
  const small = snapshot(10);
  const bound = Buffer.byteLength(serializeSnapshot(small)) * 4;

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('stores a schema within the per-entry bound with the TTL, and reads it back', async () => {
    const cache = new RedisSchemaCache(redis, bound);
    const k = key();
    await cache.set(k, small, 60);
    expect((await cache.get(k))?.tables.get('accounts')?.columns).toHaveLength(10);
    const ttl = await redis.pttl(k);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('does not write a schema over the per-entry bound', async () => {
    const cache = new RedisSchemaCache(redis, bound);
    const k = key();
    await cache.set(k, snapshot(1_000), 60);
    expect(await redis.exists(k)).toBe(0);
    expect(await cache.get(k)).toBeUndefined();
  });

  it('does not read an entry over the bound that something else wrote', async () => {
    const k = key();
    await redis.set(k, serializeSnapshot(snapshot(1_000)), 'EX', 60);
    expect(await new RedisSchemaCache(redis, bound).get(k)).toBeUndefined();
    expect(await new RedisSchemaCache(redis, 16 * 1024 * 1024).get(k)).toBeDefined();
  });
});
