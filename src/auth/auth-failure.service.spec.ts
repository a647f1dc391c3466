import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { parsePrometheusText, valueOf } from '../../test/helpers/prometheus-text.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { MemoryRateLimiter, type RateLimiter } from '../common/rate-limit/rate-limiter.js';
import type { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../system/metrics.service.js';
import { AuthFailureService } from './auth-failure.service.js';

const LIMIT = 3;

function failuresWith(options: { limit?: number; limiter?: RateLimiter; clock?: ManualClock } = {}) {
  const clock = options.clock ?? new ManualClock();
  const metrics = new MetricsService();
  const config = {
    auth: { mode: 'apikey' },
    rateLimits: { authFailuresPerClientPerMinute: options.limit ?? LIMIT },
  } as unknown as AppConfig;
  const service = new AuthFailureService(config, options.limiter ?? new MemoryRateLimiter(clock), metrics, clock);
  const scrape = async () => parsePrometheusText(await metrics.registry.metrics());
  return { service, clock, scrape };
}

const failure = (client: string) => ({ client, reason: 'unknown_key' as const, route: 'GET /v1/fetcher/:id' });

describe('AuthFailureService', () => {
  let warn: MockInstance<Logger['warn']>;
  beforeEach(() => {
    warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => vi.restoreAllMocks());

  it('lets a client fail LIMIT times a minute, answers the next failure and every later request 429, and leaves others alone', async () => {
    const { service, clock, scrape } = failuresWith();
    for (let i = 0; i < LIMIT; i += 1) {
      expect(service.refusal('203.0.113.7')).toBeUndefined();
      expect(await service.failed(failure('203.0.113.7'))).toBeUndefined();
      clock.advance(10_000);
    }
    const limited = await service.failed(failure('203.0.113.7'));
    expect(limited).toMatchObject({ code: 'FET-1070', status: 429, headers: { 'Retry-After': '30' } });
    expect(limited?.message).toBe('Failed authentication limit of 3 per minute reached. Try again in 30 seconds.');
    clock.advance(5_000);
    expect(service.refusal('203.0.113.7')).toMatchObject({ status: 429, headers: { 'Retry-After': '25' } });
    expect(service.refusal('198.51.100.1')).toBeUndefined();
    expect(warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('answered 429'))).toEqual([
      'client 203.0.113.7 had 3 failed authentications within a minute: its requests with a credential are answered 429 for 30 s',
    ]);
    // The oldest failure leaves the window: one more try.
    clock.advance(25_000);
    expect(service.refusal('203.0.113.7')).toBeUndefined();
    const samples = await scrape();
    expect(valueOf(samples, 'fetcher_auth_failures_total', { method: 'apikey', reason: 'unknown_key' })).toBe(LIMIT + 1);
    expect(valueOf(samples, 'fetcher_auth_throttled_total', { method: 'apikey' })).toBe(1);
  });

  it('logs a client once a minute, then says how many failures it left out', async () => {
    const { service, clock } = failuresWith({ limit: 0 });
    for (let i = 0; i < 10; i += 1) await service.failed(failure('203.0.113.7'));
    await service.failed(failure('198.51.100.1'));
    const lines = () => warn.mock.calls.map(([message]) => String(message));
    expect(lines()).toEqual([
      'authentication failed from 203.0.113.7 (apikey: unknown_key) on GET /v1/fetcher/:id; the next failures from this address within a minute are not logged',
      'authentication failed from 198.51.100.1 (apikey: unknown_key) on GET /v1/fetcher/:id; the next failures from this address within a minute are not logged',
    ]);
    clock.advance(60_000);
    await service.failed(failure('203.0.113.7'));
    expect(lines()[2]).toContain('; 9 more from it before this were not logged;');
    expect(warn.mock.calls[2][1]).toEqual({
      client: '203.0.113.7',
      authMethod: 'apikey',
      reason: 'unknown_key',
      route: 'GET /v1/fetcher/:id',
      unlogged: 9,
    });
  });

  it('never blocks with AUTH_FAILURE_LIMIT_PER_MINUTE=0, and still counts', async () => {
    const { service, scrape } = failuresWith({ limit: 0 });
    for (let i = 0; i < 100; i += 1) expect(await service.failed(failure('203.0.113.7'))).toBeUndefined();
    expect(service.refusal('203.0.113.7')).toBeUndefined();
    expect(valueOf(await scrape(), 'fetcher_auth_failures_total', { method: 'apikey', reason: 'unknown_key' })).toBe(100);
  });

  it('adds up the failures of replicas that share a limiter: the other one blocks at its first failure past the limit', async () => {
    const clock = new ManualClock();
    const shared = new MemoryRateLimiter(clock);
    const a = failuresWith({ limiter: shared, clock }).service;
    const b = failuresWith({ limiter: shared, clock }).service;
    for (let i = 0; i < LIMIT; i += 1) await a.failed(failure('203.0.113.7'));
    expect(b.refusal('203.0.113.7')).toBeUndefined();
    expect(await b.failed(failure('203.0.113.7'))).toMatchObject({ status: 429 });
    expect(b.refusal('203.0.113.7')).toMatchObject({ status: 429 });
  });
});
