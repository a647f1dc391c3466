import { Clock } from '../clock.js';

/** A clock that stands still until a spec moves it. */
export class ManualClock extends Clock {
  private current: number;

  constructor(start: Date | string | number = '2026-01-01T00:00:00.000Z') {
    super();
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  override nowMs(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  /** `to` as a date, an ISO string or milliseconds since the epoch. */
  set(to: Date | string | number): void {
    this.current = new Date(to).getTime();
  }
}
