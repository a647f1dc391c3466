import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../common/clock/testing/manual-scheduler.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { MemoryGuard } from './memory-guard.js';

const MiB = 1024 * 1024;

/** A guard on a manual clock and scheduler, reading the resident size from `rss` and counting its reads. */
function guardWith(limitMiB: number, rss: { value: number; reads?: number }) {
  const scheduler = new ManualScheduler();
  const sampler = () => ((rss.reads = (rss.reads ?? 0) + 1), rss.value);
  const config = { worker: { concurrency: 1, shutdownGraceMs: 0, maxRssBytes: limitMiB * MiB } };
  return { guard: new MemoryGuard(config, sampler, scheduler.clock, scheduler), scheduler };
}

/** The FET code `check` threw for `jobId`, or undefined when it let the job go on. */
function checked(guard: MemoryGuard, jobId: string): FetCode | undefined {
  try {
    guard.check(jobId);
    return undefined;
  } catch (error) {
    expect((error as Error).message).toContain('nothing was stored');
    return (error as { code: FetCode }).code;
  }
}

describe('MemoryGuard', () => {
  it('lets jobs run below the limit', () => {
    const { guard } = guardWith(512, { value: 200 * MiB });
    expect(checked(guard, 'job-1')).toBeUndefined();
    expect(guard.overLimit()).toBe(false);
  });

  it('fails one job per cooldown with FET-1107, not every job at once, and the next one once the cooldown has passed', async () => {
    const { guard, scheduler } = guardWith(512, { value: 900 * MiB });
    expect(['a', 'b', 'c'].map((jobId) => checked(guard, jobId))).toEqual([FetCode.WorkerMemoryExceeded, undefined, undefined]);
    await scheduler.advance(1_999);
    expect(checked(guard, 'd')).toBeUndefined();
    await scheduler.advance(1);
    expect(checked(guard, 'e')).toBe(FetCode.WorkerMemoryExceeded);
  });

  it('reads the resident size at most once per 250 ms of the clock, however often it is asked', async () => {
    const rss = { value: 900 * MiB, reads: 0 };
    const { guard, scheduler } = guardWith(512, rss);
    for (let i = 0; i < 10; i += 1) guard.overLimit();
    expect(rss.reads).toBe(1);
    rss.value = 100 * MiB;
    await scheduler.advance(249);
    expect(guard.overLimit()).toBe(true);
    await scheduler.advance(1);
    expect(guard.overLimit()).toBe(false);
    expect(rss.reads).toBe(2);
  });

  it('holds new jobs while over the limit and lets them go at the first poll after memory falls', async () => {
    const rss = { value: 900 * MiB };
    const { guard, scheduler } = guardWith(512, rss);
    let admitted = false;
    const shutdown = new AbortController();
    const waiting = guard.waitForHeadroom(shutdown.signal).then(() => (admitted = true));
    await scheduler.advance(1_000);
    expect(admitted).toBe(false);
    // Four polls so far, none of which left its abort listener on the worker's shutdown signal.
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    rss.value = 100 * MiB;
    await scheduler.advance(250);
    await waiting;
    expect(admitted).toBe(true);
    expect(scheduler.pending).toBe(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('stops waiting when the worker shuts down, leaving no poll behind', async () => {
    const { guard, scheduler } = guardWith(512, { value: 900 * MiB });
    const shutdown = new AbortController();
    const waiting = guard.waitForHeadroom(shutdown.signal);
    expect(scheduler.pending).toBe(1);
    shutdown.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(scheduler.pending).toBe(0);
  });

  it('is off with a limit of 0', () => {
    const { guard } = guardWith(0, { value: 64 * 1024 * MiB });
    expect(guard.overLimit()).toBe(false);
    expect(checked(guard, 'a')).toBeUndefined();
  });
});
