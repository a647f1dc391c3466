import type { Delayer } from './delayer.js';

export interface PeriodicTaskOptions {
  /**
   * From the end of one pass to the start of the next, so that passes never overlap; a function
   * is asked after each pass (a loop that knows when its next work is due sleeps until then).
   */
  readonly intervalMs: number | (() => number);
  /** A pass that throws is handed here and the loop goes on: a background loop has no caller to tell. */
  readonly onError: (error: unknown) => void;
  /** The waits between passes do not keep the process alive. */
  readonly unref?: boolean;
}

/**
 * A background loop: one pass, then the next an interval after it ended, until stopped. Stopping
 * cancels the next pass and waits for the one running, so that a shutdown does not close what a
 * pass still uses.
 */
export class PeriodicTask {
  private cancelNext: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private started = false;
  private wakeRequested = false;

  constructor(
    private readonly scheduler: Delayer,
    private readonly pass: () => Promise<unknown>,
    private readonly options: PeriodicTaskOptions,
  ) {}

  /** Started and not stopped since: a long pass checks it to end early when a shutdown begins. */
  get active(): boolean {
    return this.started;
  }

  /** The first pass on the next turn of the event loop (after the caller's own startup), then one per interval. */
  start(): void {
    if (this.started) return;
    this.started = true;
    // A pass still running from before a stop schedules the next one itself when it ends.
    if (!this.running) this.scheduleNext(0);
  }

  /** The first pass now, resolving once it has ended (the next one is then scheduled). */
  async startWithPass(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await (this.running ?? this.runPass());
  }

  /**
   * The next pass now rather than at its scheduled time; during a pass, another right after it
   * (what woke the loop may have come too late for the pass under way).
   */
  wake(): void {
    if (!this.started) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.cancelNext?.();
    this.scheduleNext(0);
  }

  async stop(): Promise<void> {
    this.started = false;
    this.cancelNext?.();
    this.cancelNext = undefined;
    await this.running;
  }

  private scheduleNext(delayMs: number): void {
    this.cancelNext = this.scheduler.delay(delayMs, () => this.runPass(), { unref: this.options.unref });
  }

  private runPass(): Promise<void> {
    this.cancelNext = undefined;
    this.wakeRequested = false;
    this.running = this.passThenReschedule().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async passThenReschedule(): Promise<void> {
    try {
      await this.pass();
    } catch (error) {
      this.options.onError(error);
    } finally {
      if (this.started) this.scheduleNext(this.wakeRequested ? 0 : this.nextIntervalMs());
    }
  }

  private nextIntervalMs(): number {
    const { intervalMs } = this.options;
    return typeof intervalMs === 'number' ? intervalMs : intervalMs();
  }
}
