import { Global, Logger, Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { REDIS_CLIENT } from '../redis/redis.module.js';
import { MemoryRateLimiter, RATE_LIMITER, RedisRateLimiter, type RateLimiter } from './rate-limiter.js';
import { Clock } from '../clock/clock.js';

/**
 * Shared limits through Redis when there is one, so replicas count together; memory otherwise.
 * A Redis failure lets the call through (logged): an unavailable limiter must not take the API down.
 */
class FailOpenRateLimiter implements RateLimiter {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly shared: RateLimiter,
    private readonly fallback: RateLimiter,
  ) {}

  async consume(key: string, limit: number, windowMs: number) {
    try {
      return await this.shared.consume(key, limit, windowMs);
    } catch (error) {
      this.logger.warn(`shared rate limit unavailable, using this process's count: ${(error as Error).message}`);
      return this.fallback.consume(key, limit, windowMs);
    }
  }
}

@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMITER,
      inject: [REDIS_CLIENT, APP_CONFIG, Clock],
      // Counts are per deployment (QUEUE_PREFIX), like its queue: deployments sharing one Redis
      // (or test runs on one machine) must not spend each other's limits.
      useFactory: (redis: Redis | null, config: Pick<AppConfig, 'queuePrefix'>, clock: Clock): RateLimiter =>
        redis
          ? new FailOpenRateLimiter(new RedisRateLimiter(redis, `${config.queuePrefix}:ratelimit:`, clock), new MemoryRateLimiter(clock))
          : new MemoryRateLimiter(clock),
    },
  ],
  exports: [RATE_LIMITER],
})
export class RateLimitModule {}
