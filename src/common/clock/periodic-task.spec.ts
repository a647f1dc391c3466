import { describe, expect, it, vi } from 'vitest';
import { TimerScheduler } from './scheduler.js';
import { ManualClock } from './testing/manual-clock.js';
import { ManualScheduler } from './testing/manual-scheduler.js';

/** A pass that records the clock time it started at, and can be held open until released. */
function recordingPass(clock: ManualClock) {
  const startedAt: string[] = [];
  let hold: Promise<void> | undefined;
  let release: () => void = () => undefined;
  return {
    startedAt,
    holdNext() {
      hold = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    pass: vi.fn(async () => {
      startedAt.push(clock.now().toISOString().slice(11, 19));
      await hold;
    }),
  };
}

describe('PeriodicTask', () => {
  it('runs its first pass on the next turn after start, then one an interval after each pass ends', async () => {
    const scheduler = new ManualScheduler(new ManualClock('2026-01-01T00:00:00Z'));
    const { pass, startedAt } = recordingPass(scheduler.clock);
    const task = scheduler.every(pass, { intervalMs: 60_000, onError: () => undefined });

    task.start();
    expect(pass).not.toHaveBeenCalled();
    await scheduler.runDue();
    expect(startedAt).toEqual(['00:00:00']);
    await scheduler.advance(59_999);
    expect(startedAt).toEqual(['00:00:00']);
    await scheduler.advance(1);
    await scheduler.advance(120_000);
    expect(startedAt).toEqual(['00:00:00', '00:01:00', '00:02:00', '00:03:00']);
  });

  it('measures the interval from the end of a pass, so that passes never overlap', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const scheduler = new ManualScheduler(clock);
    const startedAt: string[] = [];
    // Each pass takes 25 s of clock time.
    const task = scheduler.every(
      async () => {
        startedAt.push(clock.now().toISOString().slice(11, 19));
        clock.advance(25_000);
      },
      { intervalMs: 60_000, onError: () => undefined },
    );
    await task.startWithPass();
    await scheduler.advance(180_000);
    expect(startedAt).toEqual(['00:00:00', '00:01:25', '00:02:50']);
  });

  it('startWithPass resolves only once the first pass has ended', async () => {
    const scheduler = new ManualScheduler();
    const { pass, holdNext, release } = recordingPass(scheduler.clock);
    const task = scheduler.every(pass, { intervalMs: 1_000, onError: () => undefined });
    holdNext();
    let started = false;
    const starting = task.startWithPass().then(() => (started = true));
    await Promise.resolve();
    expect(pass).toHaveBeenCalledTimes(1);
    expect(started).toBe(false);
    release();
    await starting;
    expect(started).toBe(true);
    expect(scheduler.pending).toBe(1);
  });

  it('hands a failing pass to onError and keeps going', async () => {
    const scheduler = new ManualScheduler();
    const errors: unknown[] = [];
    const pass = vi.fn().mockRejectedValueOnce(new Error('store down')).mockResolvedValue(undefined);
    const task = scheduler.every(pass, { intervalMs: 1_000, onError: (error) => errors.push(error) });
    await expect(task.startWithPass()).resolves.toBeUndefined();
    expect(errors).toEqual([new Error('store down')]);
    await scheduler.advance(1_000);
    expect(pass).toHaveBeenCalledTimes(2);
  });

  it('stop cancels the next pass and waits for the one running', async () => {
    const scheduler = new ManualScheduler();
    const { pass, holdNext, release } = recordingPass(scheduler.clock);
    const task = scheduler.every(pass, { intervalMs: 1_000, onError: () => undefined });
    task.start();
    holdNext();
    const running = scheduler.runDue();
    await Promise.resolve();
    expect(task.active).toBe(true);

    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    expect(task.active).toBe(false);
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await Promise.all([stopping, running]);
    expect(stopped).toBe(true);
    // The pass that ended after the stop did not schedule another.
    expect(scheduler.pending).toBe(0);
    await scheduler.advance(10_000);
    expect(pass).toHaveBeenCalledTimes(1);
  });

  it('does not start twice, and a restart while a pass still runs schedules a single next pass', async () => {
    const scheduler = new ManualScheduler();
    const { pass, holdNext, release } = recordingPass(scheduler.clock);
    const task = scheduler.every(pass, { intervalMs: 1_000, onError: () => undefined });
    task.start();
    task.start();
    expect(scheduler.pending).toBe(1);

    holdNext();
    const running = scheduler.runDue();
    await Promise.resolve();
    const stopping = task.stop();
    task.start();
    release();
    await Promise.all([running, stopping]);
    expect(scheduler.pending).toBe(1);
    await scheduler.advance(1_000);
    expect(pass).toHaveBeenCalledTimes(2);
  });

  it('asks a function for the interval after each pass: a loop sleeps until its next work is due', async () => {
    const scheduler = new ManualScheduler(new ManualClock('2026-01-01T00:00:00Z'));
    const { pass, startedAt } = recordingPass(scheduler.clock);
    const intervals = [5_000, 3_600_000];
    const task = scheduler.every(pass, { intervalMs: () => intervals.shift() ?? 1_000, onError: () => undefined });
    await task.startWithPass();
    await scheduler.advance(5_000);
    await scheduler.advance(3_599_999);
    expect(startedAt).toEqual(['00:00:00', '00:00:05']);
    await scheduler.advance(1);
    expect(startedAt).toEqual(['00:00:00', '00:00:05', '01:00:05']);
  });

  it('wake runs the next pass at once, and a wake during a pass runs another right after it', async () => {
    const scheduler = new ManualScheduler(new ManualClock('2026-01-01T00:00:00Z'));
    const { pass, startedAt, holdNext, release } = recordingPass(scheduler.clock);
    const task = scheduler.every(pass, { intervalMs: 3_600_000, onError: () => undefined });
    task.wake();
    expect(scheduler.pending).toBe(0);
    await task.startWithPass();
    await scheduler.advance(10_000);
    task.wake();
    await scheduler.runDue();
    expect(startedAt).toEqual(['00:00:00', '00:00:10']);
    expect(scheduler.pending).toBe(1);

    await scheduler.advance(10_000);
    task.wake();
    holdNext();
    const running = scheduler.runDue();
    await Promise.resolve();
    task.wake();
    release();
    await running;
    expect(scheduler.pending).toBe(1);
    await scheduler.runDue();
    expect(startedAt).toEqual(['00:00:00', '00:00:10', '00:00:20', '00:00:20']);
    // Back to its interval once no wake is pending.
    expect(scheduler.pending).toBe(1);
    await scheduler.advance(3_599_999);
    expect(pass).toHaveBeenCalledTimes(4);
  });
});

describe('TimerScheduler', () => {
  it('calls back after the delay unless cancelled', async () => {
    vi.useFakeTimers();
    try {
      const scheduler = new TimerScheduler();
      const called: string[] = [];
      scheduler.delay(100, async () => void called.push('kept'), { unref: true });
      const cancel = scheduler.delay(100, async () => void called.push('cancelled'));
      cancel();
      vi.advanceTimersByTime(99);
      expect(called).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(called).toEqual(['kept']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('unrefs the timer only when asked', () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const scheduler = new TimerScheduler();
    const cancels = [scheduler.delay(60_000, async () => undefined, { unref: true }), scheduler.delay(60_000, async () => undefined)];
    const [kept, held] = setTimeoutSpy.mock.results.map((result) => result.value as NodeJS.Timeout);
    expect(kept.hasRef()).toBe(false);
    expect(held.hasRef()).toBe(true);
    for (const cancel of cancels) cancel();
    setTimeoutSpy.mockRestore();
  });
});
