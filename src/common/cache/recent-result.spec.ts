import { describe, expect, it } from 'vitest';
import { RecentResult } from './recent-result.js';

describe('RecentResult', () => {
  it('answers every caller from one read for freshForMs after it began, then reads again', async () => {
    let now = 0;
    let reads = 0;
    const recent = new RecentResult(
      async () => (reads += 1),
      1_000,
      () => now,
    );
    expect(await recent.get()).toBe(1);
    now = 999;
    expect(await recent.get()).toBe(1);
    now = 1_000;
    expect(await recent.get()).toBe(2);
    expect(reads).toBe(2);
  });

  it('lets callers that arrive during a read share it', async () => {
    let release: (value: string) => void = () => undefined;
    let reads = 0;
    const recent = new RecentResult(
      () => {
        reads += 1;
        return new Promise<string>((resolve) => (release = resolve));
      },
      0,
      () => 0,
    );
    const waiting = [recent.get(), recent.get(), recent.get()];
    await Promise.resolve();
    release('once');
    expect(await Promise.all(waiting)).toEqual(['once', 'once', 'once']);
    expect(reads).toBe(1);
  });

  it('keeps no rejected read: the next caller reads again', async () => {
    let reads = 0;
    const recent = new RecentResult(
      async () => {
        reads += 1;
        if (reads === 1) throw new Error('down');
        return 'up';
      },
      60_000,
      () => 0,
    );
    await expect(recent.get()).rejects.toThrow('down');
    expect(await recent.get()).toBe('up');
    expect(reads).toBe(2);
  });
});
