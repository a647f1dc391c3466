import { Scheduler } from '../scheduler.js';
import { ManualClock } from './manual-clock.js';

interface DelayedCall {
  readonly atMs: number;
  readonly callback: () => Promise<void>;
}

/**
 * A scheduler on a ManualClock: nothing runs until the spec moves the clock, and then each call
 * that fell due runs, in time order, to its end, with the clock standing at its due time.
 */
export class ManualScheduler extends Scheduler {
  private readonly calls: DelayedCall[] = [];

  constructor(readonly clock: ManualClock = new ManualClock()) {
    super();
  }

  delay(delayMs: number, callback: () => Promise<void>): () => void {
    const call: DelayedCall = { atMs: this.clock.nowMs() + delayMs, callback };
    this.calls.push(call);
    return () => this.remove(call);
  }

  repeat(intervalMs: number, callback: () => void): () => void {
    let cancelNext: () => void = () => undefined;
    let stopped = false;
    const schedule = () => {
      cancelNext = this.delay(intervalMs, async () => {
        if (stopped) return;
        schedule();
        callback();
      });
    };
    schedule();
    return () => {
      stopped = true;
      cancelNext();
    };
  }

  /** Calls waiting for their time. */
  get pending(): number {
    return this.calls.length;
  }

  /** Runs the calls due now, and those they schedule for now (a delay of 0), without moving the clock. */
  runDue(): Promise<void> {
    return this.advance(0);
  }

  /** Moves the clock `ms` forward, running on the way every call that falls due, its own follow-ups included. */
  async advance(ms: number): Promise<void> {
    const until = this.clock.nowMs() + ms;
    for (let call = this.nextDue(until); call; call = this.nextDue(until)) {
      this.remove(call);
      this.clock.set(call.atMs);
      await call.callback();
    }
    this.clock.set(until);
  }

  /** The earliest call due by `untilMs`; of two due at once, the one scheduled first. */
  private nextDue(untilMs: number): DelayedCall | undefined {
    let next: DelayedCall | undefined;
    for (const call of this.calls) if (call.atMs <= untilMs && (!next || call.atMs < next.atMs)) next = call;
    return next;
  }

  private remove(call: DelayedCall): void {
    const index = this.calls.indexOf(call);
    if (index >= 0) this.calls.splice(index, 1);
  }
}
