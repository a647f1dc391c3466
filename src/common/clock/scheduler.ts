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

  /**
   * Calls `callback` every `intervalMs` on a fixed cadence, whether or not what the last call
   * started has finished (a lease's watchdog must tick while a renewal hangs); the returned
   * function stops it.
   */
  abstract repeat(intervalMs: number, callback: () => void, options?: DelayOptions): () => void;

  /** A loop running `pass` every `options.intervalMs`; it waits until started. */
  every(pass: () => Promise<unknown>, options: PeriodicTaskOptions): PeriodicTask {
    return new PeriodicTask(this, pass, options);
  }
}

export class TimerScheduler extends Scheduler {
  delay(delayMs: number, callback: () => Promise<void>, options: DelayOptions = {}): () => void {
    // The callback settles its own failures (PeriodicTask's pass reports them): nothing to await here.
    const timer = setTimeout(() => void callback(), delayMs);
    if (options.unref) timer.unref();
    return () => clearTimeout(timer);
  }

  repeat(intervalMs: number, callback: () => void, options: DelayOptions = {}): () => void {
    const timer = setInterval(callback, intervalMs);
    if (options.unref) timer.unref();
    return () => clearInterval(timer);
  }
}
