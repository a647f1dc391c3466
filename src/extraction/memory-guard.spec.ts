import { describe, expect, it } from 'vitest';
import { FetCode } from '../engine/errors/fet-code.js';
import { MemoryGuard } from './memory-guard.js';

const MiB = 1024 * 1024;
const guardWith = (limitMiB: number, rss: { value: number }) =>
  new MemoryGuard({ worker: { concurrency: 1, shutdownGraceMs: 0, maxRssBytes: limitMiB * MiB } }, () => rss.value);

describe('MemoryGuard', () => {
  it('lets jobs run below the limit', () => {
    const guard = guardWith(512, { value: 200 * MiB });
    expect(() => guard.check('job-1')).not.toThrow();
    expect(guard.overLimit()).toBe(false);
  });

  it('fails one job per crossing with FET-1107, not every job at once', () => {
    const guard = guardWith(512, { value: 900 * MiB });
    let failed = 0;
    for (const jobId of ['a', 'b', 'c']) {
      try {
        guard.check(jobId);
      } catch (error) {
        expect((error as { code: FetCode }).code).toBe(FetCode.WorkerMemoryExceeded);
        expect((error as Error).message).toContain('nothing was stored');
        failed++;
      }
    }
    expect(failed).toBe(1);
  });

  it('holds new jobs while over the limit and lets them go once memory falls', async () => {
    const rss = { value: 900 * MiB };
    const guard = guardWith(512, rss);
    let admitted = false;
    const waiting = guard.waitForHeadroom(new AbortController().signal).then(() => (admitted = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(admitted).toBe(false);
    rss.value = 100 * MiB;
    await waiting;
    expect(admitted).toBe(true);
  });

  it('stops waiting when the worker shuts down', async () => {
    const guard = guardWith(512, { value: 900 * MiB });
    const shutdown = new AbortController();
    const waiting = guard.waitForHeadroom(shutdown.signal);
    shutdown.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('is off with a limit of 0', () => {
    const guard = guardWith(0, { value: 64 * 1024 * MiB });
    expect(guard.overLimit()).toBe(false);
    expect(() => guard.check('a')).not.toThrow();
  });
});
