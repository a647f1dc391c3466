import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../common/clock/testing/manual-scheduler.js';
import type { JobRepository } from '../job/job.repository.js';
import { JobLease } from './job-lease.js';

const storeAnswering = (renew: () => Promise<boolean>) => ({ renewLease: renew }) as unknown as JobRepository;

/** A 1,000 ms lease (renewed every 250 ms) on a manual clock, and a way to move that clock. */
function leaseOn(renew: () => Promise<boolean>) {
  const scheduler = new ManualScheduler();
  const lease = new JobLease(storeAnswering(renew), 'job', 'w1', 1_000, { clock: scheduler.clock, scheduler });
  return {
    lease,
    scheduler,
    /** Moves the clock `ms` forward a renewal interval at a time, letting each renewal's answer arrive. */
    async advance(ms: number) {
      for (let moved = 0; moved < ms; moved += 250) {
        await scheduler.advance(Math.min(250, ms - moved));
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe('JobLease', () => {
  it('keeps a lease the store keeps renewing, renewing it every quarter of its length', async () => {
    let renewals = 0;
    const { lease, advance } = leaseOn(async () => (renewals++, true));
    await advance(1_750);
    expect(lease.signal.aborted).toBe(false);
    expect(renewals).toBe(7);
    lease.stop();
  });

  it('stops renewing once stopped', async () => {
    let renewals = 0;
    const { lease, advance, scheduler } = leaseOn(async () => (renewals++, true));
    await advance(500);
    lease.stop();
    await advance(5_000);
    expect(renewals).toBe(2);
    expect(scheduler.pending).toBe(0);
  });

  it('is lost at the first renewal when the store says the job is no longer ours', async () => {
    const { lease, advance } = leaseOn(async () => false);
    await advance(249);
    expect(lease.signal.aborted).toBe(false);
    await advance(1);
    expect(lease.signal.aborted).toBe(true);
    expect(String(lease.signal.reason)).toContain('no longer held');
  });

  it('is lost once no renewal has succeeded for a whole lease period (the store is unreachable)', async () => {
    const { lease, advance } = leaseOn(() => Promise.reject(new Error('connection refused')));
    await advance(750);
    expect(lease.signal.aborted).toBe(false);
    await advance(250);
    expect(lease.signal.aborted).toBe(true);
    expect(String(lease.signal.reason)).toContain('no lease renewal succeeded for 1000 ms');
  });

  it('counts the lease period from the last renewal that succeeded', async () => {
    const answers = [true, true, true];
    const { lease, advance } = leaseOn(() => {
      const next = answers.shift();
      return next === undefined ? Promise.reject(new Error('store down')) : Promise.resolve(next);
    });
    // Renewed at 250, 500 and 750; the store is down from 1,000 on: lost at 1,750, not at 1,000.
    await advance(1_500);
    expect(lease.signal.aborted).toBe(false);
    await advance(250);
    expect(lease.signal.aborted).toBe(true);
  });

  it('counts a renewal that hangs as not renewed, without piling up more renewals', async () => {
    let calls = 0;
    const { lease, advance } = leaseOn(() => (calls++, new Promise<boolean>(() => undefined)));
    await advance(750);
    expect(lease.signal.aborted).toBe(false);
    await advance(250);
    expect(lease.signal.aborted).toBe(true);
    expect(calls).toBe(1);
  });
});
