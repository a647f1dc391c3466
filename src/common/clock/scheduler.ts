import type { DelayOptions, Delayer } from './delayer.js';
import { PeriodicTask, type PeriodicTaskOptions } from './periodic-task.js';

export type { DelayOptions };

/**
 * Deferred work: the one place the background loops (recovery sweep, outbox relay, retention
 * sweep) meet a timer, so that a spec can run their passes by moving a manual clock instead of
 * waiting for real time.
 */
export abstract class Scheduler implements Delayer {
  /** Calls `callback` once after `delayMs`; the returned function cancels a call not yet made. */
  abstract delay(delayMs: number, callback: () => Promise<void>, options?: DelayOptions): () => void;

  /** A loop running `pass` every `options.intervalMs`; it waits until started. */
  every(pass: () => Promise<unknown>, options: PeriodicTaskOptions): PeriodicTask {
    return new PeriodicTask(this, pass, options);
  }
}

export class TimerScheduler extends Scheduler {
  delay(delayMs: number, callback: () => Promise<void>, options: DelayOptions = {}): () => void {
    const timer = setTimeout(callback, delayMs);
    if (options.unref) timer.unref();
    return () => clearTimeout(timer);
  }
}
