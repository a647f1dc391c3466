/**
 * The time as Fetcher sees it, engine and service alike. Injected (never `new Date()` or
 * `Date.now()` in place) so that a spec can hold the clock still or move it and assert what is
 * stamped on a record or when a deadline falls. This file and `src/common/clock/` are the only
 * places allowed to read the system's time (a lint rule holds every other file to it).
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

/** The system's clock, for the engine's defaults where its caller gives none. */
export const systemClock: Clock = new SystemClock();
