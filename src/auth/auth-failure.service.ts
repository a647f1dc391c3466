import { Inject, Injectable, Logger } from '@nestjs/common';
import { ExpiringMap } from '../common/cache/expiring-map.js';
import { Clock } from '../common/clock/clock.js';
import { RateLimitError } from '../common/rate-limit/rate-limit.error.js';
import { RATE_LIMITER, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Metrics } from '../common/metrics/metrics.port.js';
import type { AuthFailureReason } from './auth.error.js';

const WINDOW_MS = 60_000;
/** Client addresses tracked at once for blocks and log lines; the oldest go first. */
const MAX_CLIENTS = 100_000;

export interface FailedAuthentication {
  /** clientKeyOf(request.ip). */
  readonly client: string;
  readonly reason: AuthFailureReason;
  /** `GET /v1/fetcher/:id`: the route template, never the raw path. */
  readonly route: string;
}

/**
 * Failed authentications, per client address: counted (fetcher_auth_failures_total), logged at
 * most once a minute per address, and limited. Failures are counted in the shared rate limiter
 * (Redis when there is one), so replicas add up; the verdict "too many" is kept in this process's
 * memory until the window lets the address try again, so a blocked client costs no store, Redis
 * or signature work at all. No credential, nor any part of one, is ever logged.
 */
@Injectable()
export class AuthFailureService {
  private readonly logger = new Logger('Auth');
  /** Until when (epoch ms) each blocked client is answered 429. */
  private readonly blocked: ExpiringMap<number>;
  /** The minute each client's last log line opened, and the failures since left out of the log. */
  private readonly logged: ExpiringMap<{ readonly windowStartMs: number; unlogged: number }>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {
    const now = () => clock.nowMs();
    this.blocked = new ExpiringMap(WINDOW_MS, MAX_CLIENTS, now);
    this.logged = new ExpiringMap(2 * WINDOW_MS, MAX_CLIENTS, now);
  }

  private get limit(): number {
    return this.config.rateLimits.authFailuresPerClientPerMinute;
  }

  private get method(): string {
    return this.config.auth.mode;
  }

  /** Whether the client is blocked now: a public route then ignores its credential (not counted: nothing is refused). */
  isBlocked(client: string): boolean {
    return this.blocked.has(client);
  }

  /** The 429 for a client that is blocked now (counted), or undefined: its credential may be looked at. */
  refusal(client: string): RateLimitError | undefined {
    const until = this.blocked.get(client);
    if (until === undefined) return undefined;
    this.metrics.authThrottled(this.method);
    return this.limitError(until);
  }

  /** Records a refused credential; returns the 429 to answer instead of the 401 when it used up the client's limit. */
  async failed(failure: FailedAuthentication): Promise<RateLimitError | undefined> {
    this.metrics.authFailed(this.method, failure.reason);
    this.log(failure);
    if (this.limit === 0) return undefined;
    const decision = await this.limiter.consume(`auth-failures:${failure.client}`, this.limit, WINDOW_MS);
    if (decision.allowed) return undefined;
    const until = this.clock.nowMs() + decision.retryAfterSeconds * 1000;
    if (!this.blocked.has(failure.client)) {
      this.logger.warn(
        `client ${failure.client} had ${this.limit} failed authentications within a minute: its requests with a credential are answered 429 for ${decision.retryAfterSeconds} s`,
        { client: failure.client, authMethod: this.method, retryAfterSeconds: decision.retryAfterSeconds },
      );
    }
    this.blocked.set(failure.client, until, until - this.clock.nowMs());
    return this.limitError(until);
  }

  private log({ client, reason, route }: FailedAuthentication): void {
    const now = this.clock.nowMs();
    const last = this.logged.get(client);
    if (last && now - last.windowStartMs < WINDOW_MS) {
      last.unlogged += 1;
      return;
    }
    const unlogged = last?.unlogged ?? 0;
    const earlier = unlogged > 0 ? `; ${unlogged} more from it before this were not logged` : '';
    this.logger.warn(
      `authentication failed from ${client} (${this.method}: ${reason}) on ${route}${earlier}; the next failures from this address within a minute are not logged`,
      { client, authMethod: this.method, reason, route, unlogged },
    );
    this.logged.set(client, { windowStartMs: now, unlogged: 0 });
  }

  private limitError(until: number): RateLimitError {
    const seconds = Math.max(1, Math.ceil((until - this.clock.nowMs()) / 1000));
    return new RateLimitError('Failed authentication', this.limit, seconds);
  }
}
