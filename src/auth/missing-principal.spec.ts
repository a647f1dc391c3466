import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { FetExceptionFilter } from '../common/errors/fet-exception.filter.js';
import { RATE_LIMITER, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Access, Allow, CurrentPrincipal } from './access.decorators.js';
import { AuthError } from './auth.error.js';
import { AuthFailureService } from './auth-failure.service.js';
import { AuthGuard } from './auth.guard.js';
import { AUTHENTICATOR, type Authenticator } from './authenticator.port.js';
import { RateLimitedPerPrincipal } from './principal-rate-limit.guard.js';
import type { Principal } from './principal.js';
import { ActingProduct, ListScope, type ProductScope } from './product-scope.js';

/**
 * Public routes: the guard lets them through without a credential, so nothing is attached to the
 * request. Each reads the principal the way a real route does.
 */
@Controller('probe')
@Allow(Access.Public)
class ProbeController {
  @Get('principal')
  principal(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }

  @Get('acting-product')
  actingProduct(@ActingProduct() product: string): { product: string } {
    return { product };
  }

  @Get('list-scope')
  listScope(@ListScope() scope: ProductScope): ProductScope {
    return scope;
  }

  @Get('rate-limited')
  @RateLimitedPerPrincipal('jobSubmissions')
  rateLimited(): { ok: true } {
    return { ok: true };
  }
}

const ROUTES = ['/probe/principal', '/probe/acting-product', '/probe/list-scope', '/probe/rate-limited'];

describe('a route reached without a principal', () => {
  let app: INestApplication | undefined;
  const consumed: string[] = [];
  afterEach(async () => {
    await app?.close();
    consumed.length = 0;
  });

  async function boot(auth: AppConfig['auth']): Promise<INestApplication> {
    const config = { auth, rateLimits: { jobSubmissionsPerPrincipalPerMinute: 100 } } as AppConfig;
    const limiter: RateLimiter = {
      consume: async (key) => {
        consumed.push(key);
        return { allowed: true, retryAfterSeconds: 0 };
      },
    };
    const authenticator: Authenticator = { authenticate: () => Promise.reject(AuthError.unauthenticated('unknown key', true)) };
    const moduleRef = await Test.createTestingModule({
      controllers: [ProbeController],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: RATE_LIMITER, useValue: limiter },
        { provide: AUTHENTICATOR, useValue: authenticator },
        // No address is ever blocked here: the refusal under test is the missing principal's.
        { provide: AuthFailureService, useValue: { isBlocked: () => false, refusal: () => undefined, failed: async () => undefined } },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new FetExceptionFilter());
    await app.init();
    return app;
  }

  it.each(ROUTES)('%s answers 401 FET-0010 in apikey mode, never acting as the operator', async (route) => {
    const http = request((await boot({ mode: 'apikey', adminKeys: ['x'.repeat(32)] })).getHttpServer());
    for (const call of [http.get(route).set('X-Product-Name', 'alpha'), http.get(route).set('Authorization', 'Bearer fet_unknown')]) {
      const response = await call;
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'FET-0010' });
      expect(response.headers['www-authenticate']).toContain('Bearer realm="fetcher"');
    }
    // Refused before it counted against anyone's limit, the operator's included.
    expect(consumed).toEqual([]);
  });

  it('in AUTH_MODE=none the guard attaches the anonymous operator, so every route still works', async () => {
    const http = request((await boot({ mode: 'none' })).getHttpServer());
    expect((await http.get('/probe/principal')).body).toEqual({ id: 'anonymous', method: 'none', operator: true, products: [] });
    expect((await http.get('/probe/acting-product').set('X-Product-Name', 'Alpha')).body).toEqual({ product: 'alpha' });
    expect((await http.get('/probe/list-scope')).body).toEqual({ products: 'all', named: false });
    expect((await http.get('/probe/rate-limited')).status).toBe(200);
    expect(consumed).toEqual(['principal:jobSubmissions:anonymous']);
  });
});
