import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limiter.js';
import { ManualClock } from '../clock/testing/manual-clock.js';

describe('MemoryRateLimiter', () => {
  it('allows `limit` calls per window, then says how long to wait', async () => {
    const clock = new ManualClock(1_000_000);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i += 1) {
      expect((await limiter.consume('c1', 10, 60_000)).allowed).toBe(true);
      clock.advance(1_000);
    }
    expect(await limiter.consume('c1', 10, 60_000)).toEqual({ allowed: false, retryAfterSeconds: 50 });
    expect((await limiter.consume('c2', 10, 60_000)).allowed).toBe(true);
    clock.advance(50_000);
    expect((await limiter.consume('c1', 10, 60_000)).allowed).toBe(true);
  });

  it('forgets keys whose window has passed, so a stream of new keys does not grow it for ever', async () => {
    const clock = new ManualClock(1_000_000);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 5_000; i += 1) await limiter.consume(`client-${i}`, 1, 10_000);
    expect(limiter.size).toBe(5_000);
    clock.advance(61_000);
    await limiter.consume('newcomer', 1, 10_000);
    expect(limiter.size).toBe(1);
  });

  it('keeps the count of a key still inside its window through a sweep', async () => {
    const clock = new ManualClock(1_000_000);
    const limiter = new MemoryRateLimiter(clock);
    await limiter.consume('short', 1, 1_000);
    for (let i = 0; i < 3; i += 1) expect((await limiter.consume('long', 3, 120_000)).allowed).toBe(true);
    clock.advance(61_000);
    // The sweep runs on this call: 'short' has expired and goes; 'long' still holds its three calls.
    expect(await limiter.consume('long', 3, 120_000)).toEqual({ allowed: false, retryAfterSeconds: 59 });
    expect(limiter.size).toBe(1);
  });
});

describe('RedisRateLimiter (shared by every replica)', () => {
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  afterAll(() => redis.disconnect());

  it('shares one window between two limiters, as two processes would', async () => {
    const key = `test-${randomUUID()}`;
    const replicas: RateLimiter[] = [new RedisRateLimiter(redis, 'fetcher-test:'), new RedisRateLimiter(redis, 'fetcher-test:')];
    const outcomes = [];
    for (let i = 0; i < 11; i += 1) outcomes.push(await replicas[i % 2].consume(key, 10, 60_000));
    expect(outcomes.slice(0, 10).every((outcome) => outcome.allowed)).toBe(true);
    expect(outcomes[10].allowed).toBe(false);
    expect(outcomes[10].retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(await redis.pttl(`fetcher-test:${key}`)).toBeGreaterThan(0);
  });
});
