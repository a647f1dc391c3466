import { describe, expect, it } from 'vitest';
import type { JobRepository } from '../job/job.repository.js';
import { JobLease } from './job-lease.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const storeAnswering = (renew: () => Promise<boolean>) => ({ renewLease: renew }) as unknown as JobRepository;

describe('JobLease', () => {
  it('keeps a lease the store keeps renewing', async () => {
    let renewals = 0;
    const lease = new JobLease(
      storeAnswering(async () => (renewals++, true)),
      'job',
      'w1',
      1_000,
    );
    await sleep(1_600);
    lease.stop();
    expect(lease.signal.aborted).toBe(false);
    expect(renewals).toBeGreaterThanOrEqual(3);
  });

  it('is lost at once when the store says the job is no longer ours', async () => {
    const lease = new JobLease(
      storeAnswering(async () => false),
      'job',
      'w1',
      1_000,
    );
    await sleep(400);
    expect(lease.signal.aborted).toBe(true);
    expect(String(lease.signal.reason)).toContain('no longer held');
  });

  it('is lost once no renewal has succeeded for a whole lease period (the store is unreachable)', async () => {
    const lease = new JobLease(
      storeAnswering(() => Promise.reject(new Error('connection refused'))),
      'job',
      'w1',
      1_000,
    );
    await sleep(700);
    expect(lease.signal.aborted).toBe(false);
    await sleep(800);
    expect(lease.signal.aborted).toBe(true);
    expect(String(lease.signal.reason)).toContain('no lease renewal succeeded for 1000 ms');
  });

  it('counts a renewal that hangs as not renewed, without piling up more renewals', async () => {
    let calls = 0;
    const lease = new JobLease(
      storeAnswering(() => (calls++, new Promise<boolean>(() => undefined))),
      'job',
      'w1',
      1_000,
    );
    await sleep(1_400);
    expect(lease.signal.aborted).toBe(true);
    expect(calls).toBe(1);
  });
});
