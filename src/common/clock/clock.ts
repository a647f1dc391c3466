/**
 * The time as the services see it. Injected (not `new Date()`) so that a unit spec can hold the
 * clock still or move it, and assert what a service stamps on a record.
 */
export abstract class Clock {
  abstract now(): Date;

  /** Milliseconds since the epoch; `now().getTime()` without the allocation. */
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }

  override nowMs(): number {
    return Date.now();
  }
}
