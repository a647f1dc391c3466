import { systemClock } from '../clock/clock.js';

/**
 * One call of `read` answers every caller for `freshForMs` after that call began; callers that
 * arrive while it runs wait on it. For what anonymous callers trigger (readiness probes, store-wide
 * gauges): the source sees one read per period, whatever the callers' rate. A rejected read is not
 * kept: the next caller reads again (map failures to a value first to keep them too).
 */
export class RecentResult<T> {
  private last?: { readonly startedMs: number; readonly value: T };
  private inFlight?: Promise<T>;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly freshForMs: number,
    private readonly now: () => number = () => systemClock.nowMs(),
  ) {}

  get(): Promise<T> {
    const last = this.last;
    if (last && this.now() - last.startedMs < this.freshForMs) return Promise.resolve(last.value);
    if (this.inFlight) return this.inFlight;
    const startedMs = this.now();
    const reading = Promise.resolve()
      .then(this.read)
      .then((value) => {
        this.last = { startedMs, value };
        return value;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    this.inFlight = reading;
    return reading;
  }
}
