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

  /** Waits up to `graceMs`, aborts whatever still runs, then waits for the aborted handlers to settle. */
  async drain(graceMs: number): Promise<void> {
    const all = () => Promise.allSettled([...this.running.values()].map((entry) => entry.done));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([all().then(() => 'drained' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      for (const entry of this.running.values()) entry.controller.abort(new Error('worker is shutting down'));
      await all();
    }
  }
}
