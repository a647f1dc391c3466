import { Inject, Injectable } from '@nestjs/common';
import { RATE_LIMITER, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { RateLimitError } from '../common/rate-limit/rate-limit.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const RATE_WINDOW_MS = 60_000;

/**
 * Tests of one connection per minute (CONNECTION_TEST_RATE_LIMIT), whoever asks: the
 * route's per-principal limit alone would let many principals hammer one server together.
 */
@Injectable()
export class ConnectionTestLimit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'connectionTestRateLimitPerMinute'>,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  /** Counts one test of the connection; 429 FET-1070 with Retry-After once the minute's tests are used up. */
  async consume(connectionId: string): Promise<void> {
    const limit = this.config.connectionTestRateLimitPerMinute;
    const decision = await this.limiter.consume(`connection-test:${connectionId}`, limit, RATE_WINDOW_MS);
    if (!decision.allowed) throw new RateLimitError('Connection test', limit, decision.retryAfterSeconds);
  }
}
