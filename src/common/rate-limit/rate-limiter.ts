import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Clock, systemClock } from '../clock/clock.js';

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Whole seconds until the next call would be allowed (0 when allowed). */
  readonly retryAfterSeconds: number;
}

/** At most `limit` calls per `windowMs` per key, over a sliding window. */
export interface RateLimiter {
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export const RATE_LIMITER = Symbol('RATE_LIMITER');

const decision = (allowed: boolean, waitMs: number): RateLimitDecision => ({
  allowed,
  retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(waitMs / 1000)),
});

/** How often the memory limiter drops the keys whose window has passed. */
const SWEEP_EVERY_MS = 60_000;

/**
 * One process's memory: right for the embedded mode, where there is one process. Keys come from
 * callers (principals, connections, client addresses), so a key whose calls have all left their
 * window is dropped by a sweep at most once a minute, run by whichever call comes next: memory
 * follows the keys in use, not every key ever seen.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly calls = new Map<string, { readonly windowMs: number; readonly stamps: number[] }>();
  private nextSweepAt: number;

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly sweepEveryMs: number = SWEEP_EVERY_MS,
  ) {
    this.nextSweepAt = clock.nowMs() + sweepEveryMs;
  }

  /** Keys held now (for tests and diagnostics). */
  get size(): number {
    return this.calls.size;
  }

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.clock.nowMs();
    if (now >= this.nextSweepAt) this.sweep(now);
    const recent = (this.calls.get(key)?.stamps ?? []).filter((at) => at > now - windowMs);
    const allowed = recent.length < limit;
    if (allowed) recent.push(now);
    if (recent.length > 0) this.calls.set(key, { windowMs, stamps: recent });
    else this.calls.delete(key);
    return decision(allowed, recent.length > 0 ? recent[0] + windowMs - now : windowMs);
  }

  private sweep(now: number): void {
    this.nextSweepAt = now + this.sweepEveryMs;
    for (const [key, { windowMs, stamps }] of this.calls) {
      if (stamps[stamps.length - 1] <= now - windowMs) this.calls.delete(key);
    }
  }
}

/** Sliding log in a sorted set, checked and recorded in one script so replicas share the limit. */
const SLIDING_WINDOW = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, tonumber(oldest[2] or now)}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock = systemClock,
  ) {}

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.clock.nowMs();
    const member = `${now}:${randomUUID()}`;
    const [allowed, oldest] = (await this.redis.eval(SLIDING_WINDOW, 1, this.prefix + key, now, windowMs, limit, member)) as [
      number,
      number,
    ];
    return decision(allowed === 1, oldest + windowMs - now);
  }
}
