import { Counter, Gauge, type Registry } from 'prom-client';
import { RecentResult } from '../common/cache/recent-result.js';
import { settlesWithin } from '../engine/concurrency/settles-within.js';
import { systemClock } from '../common/clock/clock.js';

export interface GaugeSample<L extends string> {
  readonly labels?: Partial<Record<L, string>>;
  readonly value: number;
}

export interface ScrapedGaugeOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
  /** Names the source in fetcher_metrics_collector_errors_total. */
  readonly collector: string;
  /** One cheap query of the source. */
  readonly read: () => Promise<ReadonlyArray<GaugeSample<L>>>;
}

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

/**
 * Gauges whose samples are read from a store when /metrics is scraped. A source that fails or
 * misses the deadline leaves its gauge without samples for that scrape (a stale or zero value
 * would be a lie) and counts an error; the scrape itself always answers. While a read is still
 * running, later scrapes wait on that same read: a stalled store gets one query, not one per scrape.
 * A settled read (a failure too) answers every scrape for `refreshMs` after it began, so the
 * stores see one read per period whatever the scrape rate; 0 reads at every scrape.
 */
export class ScrapedGauges {
  private readonly collecting = new Set<Promise<void>>();
  private readonly errors: Counter<'collector' | 'reason'>;

  constructor(
    private readonly registry: Registry,
    private readonly deadlineMs: number,
    private readonly refreshMs = 0,
    private readonly now: () => number = () => systemClock.nowMs(),
  ) {
    const collecting = this.collecting;
    this.errors = new Counter({
      name: 'fetcher_metrics_collector_errors_total',
      help: 'Scrapes that left out a store-backed metric because its source failed or missed its deadline',
      labelNames: ['collector', 'reason'] as const,
      registers: [registry],
      // The errors of this very scrape belong in it. registry.metrics() starts every metric's
      // collection in one synchronous pass, so one turn later every gauge's read has begun.
      async collect() {
        await Promise.resolve();
        await Promise.all(collecting);
      },
    });
  }

  add<L extends string>(options: ScrapedGaugeOptions<L>): Gauge<L> {
    const { collecting, errors, deadlineMs, refreshMs, now } = this;
    type Read = Settled<ReadonlyArray<GaugeSample<L>>>;
    // Failures are settled into values, so a failed read is kept for the period as well.
    const reads = new RecentResult<Read>(
      () =>
        Promise.resolve()
          .then(options.read)
          .then(
            (value) => ({ ok: true, value }) as const,
            () => ({ ok: false }) as const,
          ),
      refreshMs,
      now,
    );
    const unlabelled = (options.labelNames ?? []).length === 0;
    return new Gauge<L>({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames ?? [],
      registers: [this.registry],
      collect() {
        const clear = () => {
          this.reset();
          // reset() leaves a gauge without labels at 0: removing that sample is what leaves it out.
          if (unlabelled) this.remove({});
        };
        const collection = (async () => {
          clear();
          const reading = reads.get();
          if (!(await settlesWithin(reading, deadlineMs))) {
            errors.inc({ collector: options.collector, reason: 'timeout' });
            return;
          }
          const result = await reading;
          try {
            if (!result.ok) throw new Error('read failed');
            for (const sample of result.value) this.set(sample.labels ?? {}, sample.value);
          } catch {
            clear();
            errors.inc({ collector: options.collector, reason: 'error' });
          }
        })();
        collecting.add(collection);
        return collection.finally(() => collecting.delete(collection));
      },
    });
  }
}
