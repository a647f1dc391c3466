import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { RATE_LIMITER, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { RateLimitError } from '../common/rate-limit/rate-limit.error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const RATE_WINDOW_MS = 60_000;

/**
 * Tests of one connection per minute (CONNECTION_TEST_RATE_LIMIT), whoever asks: the route's
 * per-principal limit alone would let many principals hammer one server together. A stored
 * connection belongs to one product, so its tests share one count. An internal datasource is
 * shared by every product it serves: each product (and the operators together) gets its own
 * count, so one product cannot use up another's tests of it.
 */
@Injectable()
export class ConnectionTestLimit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'connectionTestRateLimitPerMinute'>,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  /**
   * Counts one test of the connection; 429 FET-1070 with Retry-After once the minute's tests are
   * used up. `sharedBy`: the caller of a test of an internal datasource.
   */
  async consume(connectionId: string, sharedBy?: Principal): Promise<void> {
    const limit = this.config.connectionTestRateLimitPerMinute;
    const scope = sharedBy === undefined ? '' : `:${testerOf(sharedBy)}`;
    const decision = await this.limiter.consume(`connection-test:${connectionId}${scope}`, limit, RATE_WINDOW_MS);
    if (!decision.allowed) throw new RateLimitError('Connection test', limit, decision.retryAfterSeconds);
  }
}

/** Whose count a test of a shared datasource goes to: the operators', or the caller's products (names never hold a comma). */
function testerOf(principal: Principal): string {
  return principal.operator ? 'operator' : `product:${[...principal.products].sort().join(',')}`;
}
