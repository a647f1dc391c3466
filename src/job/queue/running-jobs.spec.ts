import { describe, expect, it } from 'vitest';
import { RunningJobs } from './running-jobs.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RunningJobs.drain', () => {
  it('waits for handlers that finish within the grace period and leaves none behind', async () => {
    const running = new RunningJobs();
    void running.run('a', async () => void (await sleep(50)));
    expect(await running.drain(1_000, 100)).toEqual([]);
    expect(running.size).toBe(0);
  });

  it('aborts handlers still running after the grace period and waits for them to settle', async () => {
    const running = new RunningJobs();
    let reason: unknown;
    void running.run(
      'a',
      (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => ((reason = signal.reason), resolve()))),
    );
    expect(await running.drain(50, 1_000)).toEqual([]);
    expect(String(reason)).toContain('shutting down');
  });

  it('returns within grace + settle time with the ids of handlers that ignore their abort', async () => {
    const running = new RunningJobs();
    void running.run('stuck', () => new Promise<void>(() => undefined));
    void running.run('polite', (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())));
    const started = Date.now();
    expect(await running.drain(50, 200)).toEqual(['stuck']);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
