import { describe, expect, it } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { nextRetry } from './webhook-backoff.js';

const policy = { baseMs: 5_000, maxMs: 3_600_000, windowMs: 86_400_000 };

describe('webhook retry backoff', () => {
  it('grows exponentially from the base to the cap, with full jitter below it', () => {
    const clock = new ManualClock();
    const first = clock.now();
    const delays = [1, 2, 3, 4, 12, 30].map((failures) => {
      const decision = nextRetry(policy, failures, first, clock.now(), () => 0.999999);
      if (decision.dead) throw new Error('not dead yet');
      return decision.nextAttemptAt.getTime() - clock.nowMs();
    });
    expect(delays).toEqual([4_999, 9_999, 19_999, 39_999, 3_599_996, 3_599_996]);
    const low = nextRetry(policy, 5, first, clock.now(), () => 0);
    expect(low).toEqual({ dead: false, nextAttemptAt: clock.now() });
    const half = nextRetry(policy, 3, first, clock.now(), () => 0.5);
    expect(half).toEqual({ dead: false, nextAttemptAt: new Date(clock.nowMs() + 10_000) });
  });

  it('is dead once the next attempt would fall after the window from the event', () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const first = clock.now();
    clock.advance(86_400_000 - 10_000);
    expect(nextRetry(policy, 20, first, clock.now(), () => 0.001).dead).toBe(false);
    expect(nextRetry(policy, 20, first, clock.now(), () => 0.5).dead).toBe(true);
    clock.advance(10_001);
    expect(nextRetry(policy, 20, first, clock.now(), () => 0)).toEqual({ dead: true });
  });

  it('gives a delivery that waited its turn past the window no fresh window: dead at its first failure', () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const event = clock.now();
    clock.advance(86_400_000 + 1);
    expect(nextRetry(policy, 1, event, clock.now(), () => 0)).toEqual({ dead: true });
  });

  it('walks a delivery from its first failure to dead within the window, on a manual clock', () => {
    const clock = new ManualClock();
    const first = clock.now();
    let failures = 0;
    for (;;) {
      failures++;
      const decision = nextRetry(policy, failures, first, clock.now(), () => 1 - 1e-9);
      if (decision.dead) break;
      expect(decision.nextAttemptAt.getTime()).toBeLessThanOrEqual(first.getTime() + policy.windowMs);
      clock.set(decision.nextAttemptAt);
    }
    // 5 s·2^n up to the hour cap, then hourly: about 30 attempts in 24 h.
    expect(failures).toBeGreaterThan(20);
    expect(failures).toBeLessThan(40);
    expect(clock.nowMs() - first.getTime()).toBeLessThanOrEqual(policy.windowMs);
  });
});
