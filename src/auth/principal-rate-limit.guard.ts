import { applyDecorators, Inject, Injectable, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { RateLimitError } from '../common/rate-limit/rate-limit.error.js';
import { RATE_LIMITER, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { requirePrincipal } from './access.decorators.js';

const WINDOW_MS = 60_000;
const METADATA = 'fetcher:principal-rate-limit';

const LIMITS = {
  jobSubmissions: { label: 'Job submission', perMinute: (config: AppConfig) => config.rateLimits.jobSubmissionsPerPrincipalPerMinute },
  connectionTests: { label: 'Connection test', perMinute: (config: AppConfig) => config.rateLimits.connectionTestsPerPrincipalPerMinute },
  schemaDiscoveries: {
    label: 'Schema discovery',
    perMinute: (config: AppConfig) => config.rateLimits.schemaDiscoveriesPerPrincipalPerMinute,
  },
} as const;

export type PrincipalLimit = keyof typeof LIMITS;

/**
 * Counts a route's calls per principal per minute (shared by replicas through Redis), so one
 * caller cannot fan out many connections through Fetcher. Runs after the global auth guard.
 */
@Injectable()
export class PrincipalRateLimitGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.get<PrincipalLimit>(METADATA, context.getHandler());
    const principal = requirePrincipal(context.switchToHttp().getRequest<Request>());
    const limit = LIMITS[name].perMinute(this.config);
    const decision = await this.limiter.consume(`principal:${name}:${principal.id}`, limit, WINDOW_MS);
    if (!decision.allowed) throw new RateLimitError(LIMITS[name].label, limit, decision.retryAfterSeconds);
    return true;
  }
}

/** `@RateLimitedPerPrincipal('jobSubmissions')` on a route; its 429 is documented with the route's other answers (ApiErrors). */
export function RateLimitedPerPrincipal(name: PrincipalLimit): MethodDecorator {
  return applyDecorators(SetMetadata(METADATA, name), UseGuards(PrincipalRateLimitGuard));
}
