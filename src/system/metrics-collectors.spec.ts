import { describe, expect, it, vi } from 'vitest';
import { parsePrometheusText, valueOf } from '../../test/helpers/prometheus-text.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import type { OutboxRepository } from '../events/outbox.repository.js';
import type { JobListRepository } from '../job/job-list.repository.js';
import { JobStatus } from '../job/job-status.js';
import type { JobQueue } from '../job/queue/job-queue.port.js';
import { MetricsCollectors } from './metrics-collectors.js';
import { MetricsService } from './metrics.service.js';

const DEADLINE_MS = 100;

interface Sources {
  countByStatus: () => Promise<Map<JobStatus, number>>;
  depth: () => Promise<number>;
  backlog: () => Promise<number>;
}

function collectorsOver(sources: Sources, refresh?: { refreshMs: number; clock: ManualClock }) {
  const metrics = new MetricsService();
  const spies = { countByStatus: vi.fn(sources.countByStatus), depth: vi.fn(sources.depth), backlog: vi.fn(sources.backlog) };
  new MetricsCollectors(
    metrics,
    { countByStatus: spies.countByStatus } as unknown as JobListRepository,
    { depth: spies.depth } as unknown as JobQueue,
    { backlog: spies.backlog } as unknown as OutboxRepository,
    DEADLINE_MS,
    refresh?.refreshMs,
    refresh?.clock,
  ).onModuleInit();
  const scrape = async () => parsePrometheusText(await metrics.registry.metrics());
  return { scrape, spies };
}

const healthy: Sources = {
  countByStatus: async () =>
    new Map([
      [JobStatus.Pending, 2],
      [JobStatus.Completed, 7],
    ]),
  depth: async () => 2,
  backlog: async () => 3,
};

const never = () => new Promise<never>(() => undefined);

describe('MetricsCollectors', () => {
  it('reads jobs by status (every status, 0 where there are none), queue depth and outbox backlog at scrape time', async () => {
    const { scrape } = collectorsOver(healthy);
    const samples = await scrape();
    expect(Object.values(JobStatus).map((status) => [status, valueOf(samples, 'fetcher_jobs', { status })])).toEqual([
      ['pending', 2],
      ['processing', 0],
      ['completed', 7],
      ['failed', 0],
    ]);
    expect(valueOf(samples, 'fetcher_queue_depth')).toBe(2);
    expect(valueOf(samples, 'fetcher_outbox_backlog')).toBe(3);
    expect(valueOf(samples, 'fetcher_metrics_collector_errors_total')).toBeUndefined();
  });

  it('leaves out the metric of a failing source, counts the error, and still answers with the others', async () => {
    const { scrape } = collectorsOver({ ...healthy, countByStatus: () => Promise.reject(new Error('SQLITE_BUSY')) });
    const samples = await scrape();
    expect(valueOf(samples, 'fetcher_jobs')).toBeUndefined();
    expect(valueOf(samples, 'fetcher_queue_depth')).toBe(2);
    expect(valueOf(samples, 'fetcher_outbox_backlog')).toBe(3);
    expect(valueOf(samples, 'fetcher_metrics_collector_errors_total', { collector: 'job_store', reason: 'error' })).toBe(1);
  });

  it('answers within the deadline when a source stalls, and does not pile a query per scrape onto it', async () => {
    const { scrape, spies } = collectorsOver({ ...healthy, depth: never });
    const started = Date.now();
    const [first, second] = await Promise.all([scrape(), scrape()]);
    const third = await scrape();
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS * 2 + 1_000);
    expect(spies.depth).toHaveBeenCalledTimes(1);
    for (const samples of [first, second]) expect(valueOf(samples, 'fetcher_queue_depth')).toBeUndefined();
    expect(valueOf(third, 'fetcher_outbox_backlog')).toBe(3);
    expect(valueOf(third, 'fetcher_metrics_collector_errors_total', { collector: 'queue', reason: 'timeout' })).toBe(3);
  });

  it('reports again once the source answers, with no stale value in between', async () => {
    let fail = true;
    const { scrape } = collectorsOver({ ...healthy, backlog: async () => (fail ? Promise.reject(new Error('down')) : 0) });
    expect(valueOf(await scrape(), 'fetcher_outbox_backlog')).toBeUndefined();
    fail = false;
    expect(valueOf(await scrape(), 'fetcher_outbox_backlog')).toBe(0);
    fail = true;
    expect(valueOf(await scrape(), 'fetcher_outbox_backlog')).toBeUndefined();
  });

  it('survives a source that throws instead of rejecting', async () => {
    const { scrape } = collectorsOver({
      ...healthy,
      depth: () => {
        throw new Error('not connected');
      },
    });
    const samples = await scrape();
    expect(valueOf(samples, 'fetcher_queue_depth')).toBeUndefined();
    expect(valueOf(samples, 'fetcher_metrics_collector_errors_total', { collector: 'queue', reason: 'error' })).toBe(1);
  });

  describe('with a refresh period (METRICS_STORE_REFRESH_SECONDS)', () => {
    const REFRESH_MS = 5_000;

    it('reads each store once per period, whatever the scrape rate, and shows what that read found', async () => {
      const clock = new ManualClock();
      let pending = 2;
      const { scrape, spies } = collectorsOver(
        { ...healthy, countByStatus: async () => new Map([[JobStatus.Pending, pending]]) },
        { refreshMs: REFRESH_MS, clock },
      );
      for (let i = 0; i < 100; i += 1) expect(valueOf(await scrape(), 'fetcher_jobs', { status: 'pending' })).toBe(2);
      await Promise.all(Array.from({ length: 50 }, () => scrape()));
      pending = 5;
      clock.advance(REFRESH_MS - 1);
      expect(valueOf(await scrape(), 'fetcher_jobs', { status: 'pending' })).toBe(2);
      for (const spy of Object.values(spies)) expect(spy).toHaveBeenCalledTimes(1);
      clock.advance(1);
      expect(valueOf(await scrape(), 'fetcher_jobs', { status: 'pending' })).toBe(5);
      for (const spy of Object.values(spies)) expect(spy).toHaveBeenCalledTimes(2);
    });

    it('holds a failed read for the period too: the gauge stays out and each scrape counts the error, with no new query', async () => {
      const clock = new ManualClock();
      let fail = true;
      const { scrape, spies } = collectorsOver(
        { ...healthy, backlog: async () => (fail ? Promise.reject(new Error('down')) : 4) },
        { refreshMs: REFRESH_MS, clock },
      );
      await scrape();
      fail = false;
      const samples = await scrape();
      expect(valueOf(samples, 'fetcher_outbox_backlog')).toBeUndefined();
      expect(valueOf(samples, 'fetcher_metrics_collector_errors_total', { collector: 'outbox', reason: 'error' })).toBe(2);
      expect(spies.backlog).toHaveBeenCalledTimes(1);
      clock.advance(REFRESH_MS);
      expect(valueOf(await scrape(), 'fetcher_outbox_backlog')).toBe(4);
    });
  });
});
