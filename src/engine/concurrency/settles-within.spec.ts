import { describe, expect, it, vi } from 'vitest';
import { withDeadline } from './settles-within.js';

describe('withDeadline', () => {
  it('answers with what the work settles with when it is in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    try {
      await expect(withDeadline(Promise.resolve(7), 1_000, () => new Error('late'))).resolves.toBe(7);
      await expect(withDeadline(Promise.reject(new Error('refused')), 1_000, () => new Error('late'))).rejects.toThrow('refused');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets the process exit with only an unref deadline pending, and keeps it alive otherwise', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      const pending = new Promise<never>(() => undefined);
      void withDeadline(pending, 60_000, () => new Error('late'), { unref: true }).catch(() => undefined);
      void withDeadline(pending, 60_000, () => new Error('late')).catch(() => undefined);
      const [unrefd, held] = timers.mock.results.map((result) => result.value as NodeJS.Timeout);
      expect(unrefd.hasRef()).toBe(false);
      expect(held.hasRef()).toBe(true);
      clearTimeout(unrefd);
      clearTimeout(held);
    } finally {
      timers.mockRestore();
    }
  });

  it('rejects with the timeout error once the deadline passes, and ignores the work from then on', async () => {
    vi.useFakeTimers();
    try {
      let fail: (error: Error) => void = () => undefined;
      const work = new Promise<number>((_, reject) => (fail = reject));
      const bounded = withDeadline(work, 1_000, () => new Error('no answer within 1000 ms'));
      const outcome = bounded.then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      await vi.advanceTimersByTimeAsync(999);
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(await outcome).toBe('no answer within 1000 ms');
      // A failure after the deadline is nobody's: no unhandled rejection.
      fail(new Error('too late'));
      await vi.advanceTimersByTimeAsync(10);
    } finally {
      vi.useRealTimers();
    }
  });
});
