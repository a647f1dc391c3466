import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.js';
import { MemoryRateLimiter } from '../common/rate-limit/rate-limiter.js';
import { RateLimitError } from '../common/rate-limit/rate-limit.error.js';
import { ConnectionTestLimit } from './connection-test-limit.js';

const product = (id: string, ...products: string[]): Principal => ({ id, method: 'apikey', operator: false, products });
const ALPHA = product('apikey:a1', 'alpha');
const ALPHA_AGAIN = product('apikey:a2', 'alpha');
const BETA = product('apikey:b1', 'beta');
const OPERATOR: Principal = { id: 'admin-key:0', method: 'apikey', operator: true, products: [] };

const limit = (perMinute: number) => new ConnectionTestLimit({ connectionTestRateLimitPerMinute: perMinute }, new MemoryRateLimiter());

describe('ConnectionTestLimit', () => {
  it('counts the tests of a stored connection together, whoever asks', async () => {
    const tests = limit(2);
    await expect(tests.consume('c1')).resolves.toBeUndefined();
    await expect(tests.consume('c1')).resolves.toBeUndefined();
    await expect(tests.consume('c1')).rejects.toBeInstanceOf(RateLimitError);
    await expect(tests.consume('c2')).resolves.toBeUndefined();
  });

  it('gives each product its own count of tests of a shared internal datasource, and the operators theirs', async () => {
    const tests = limit(2);
    await expect(tests.consume('dwh', ALPHA)).resolves.toBeUndefined();
    await expect(tests.consume('dwh', ALPHA_AGAIN)).resolves.toBeUndefined();
    // Alpha's keys share alpha's count; beta and the operators are untouched by it.
    await expect(tests.consume('dwh', ALPHA)).rejects.toBeInstanceOf(RateLimitError);
    await expect(tests.consume('dwh', BETA)).resolves.toBeUndefined();
    await expect(tests.consume('dwh', BETA)).resolves.toBeUndefined();
    await expect(tests.consume('dwh', BETA)).rejects.toBeInstanceOf(RateLimitError);
    await expect(tests.consume('dwh', OPERATOR)).resolves.toBeUndefined();
    await expect(tests.consume('dwh', OPERATOR)).resolves.toBeUndefined();
    await expect(tests.consume('dwh', OPERATOR)).rejects.toBeInstanceOf(RateLimitError);
  });

  it('answers the 429 with the limit and when to retry', async () => {
    const tests = limit(1);
    await expect(tests.consume('dwh', ALPHA)).resolves.toBeUndefined();
    const error = await tests.consume('dwh', ALPHA).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).message).toMatch(/^Connection test limit of 1 per minute reached/);
    expect(Number((error as RateLimitError).headers?.['Retry-After'])).toBeGreaterThan(0);
  });
});
