import { settlesWithin } from '../../engine/concurrency/settles-within.js';

/** After the grace period, how long aborted handlers get to settle before they are left behind. */
export const ABORT_SETTLE_MS = 3_000;

/** Tracks running handlers so a shutdown can wait for them, then abort the stragglers. */
export class RunningJobs {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  get size(): number {
    return this.running.size;
  }

  run(jobId: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const done = work(controller.signal).finally(() => this.running.delete(jobId));
    this.running.set(jobId, { controller, done });
    return done;
  }

  /**
   * Waits up to `graceMs`, aborts whatever still runs, then waits at most `settleMs` for the aborted
   * handlers. Resolves with the ids of those still running then: a handler stuck on something that
   * ignores its signal cannot keep the process from exiting; the caller hands those jobs back.
   */
  async drain(graceMs: number, settleMs = ABORT_SETTLE_MS): Promise<string[]> {
    const all = () => Promise.allSettled([...this.running.values()].map((entry) => entry.done));
    if (!(await settlesWithin(all(), graceMs))) {
      for (const entry of this.running.values()) entry.controller.abort(new Error('worker is shutting down'));
      await settlesWithin(all(), settleMs);
    }
    return [...this.running.keys()];
  }
}
