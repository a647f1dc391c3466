import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { Clock, systemClock } from '../common/clock/clock.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { JobListRepository } from '../job/job-list.repository.js';
import { JobStatus } from '../job/job-status.js';
import { JOB_QUEUE, type JobQueue } from '../job/queue/job-queue.port.js';
import { MetricsService } from './metrics.service.js';
import { ScrapedGauges } from './metrics-scraped-gauge.js';

/** How long one scrape waits for a store before leaving its metric out. */
export const METRICS_COLLECT_DEADLINE_MS = Symbol('METRICS_COLLECT_DEADLINE_MS');
const DEFAULT_DEADLINE_MS = 2_000;
/** How long one read of a store answers the scrapes that follow it (METRICS_STORE_REFRESH_SECONDS). */
export const METRICS_STORE_REFRESH_MS = Symbol('METRICS_STORE_REFRESH_MS');

/**
 * The gauges read at scrape time from the shared stores: jobs by status (job store), queue depth
 * (Redis or the in-process queue) and the outbox backlog, each at most once per refresh period. They describe the whole deployment, so
 * every process reports the same values: aggregate them with max, not sum.
 */
@Injectable()
export class MetricsCollectors implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly jobs: JobListRepository,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    private readonly outbox: OutboxRepository,
    @Optional() @Inject(METRICS_COLLECT_DEADLINE_MS) private readonly deadlineMs: number = DEFAULT_DEADLINE_MS,
    @Optional() @Inject(METRICS_STORE_REFRESH_MS) private readonly refreshMs: number = 0,
    @Optional() @Inject(Clock) private readonly clock?: Clock,
  ) {}

  /** Registers the gauges on the process's registry. */
  onModuleInit(): void {
    const { jobs, queue, outbox } = this;
    const clock = this.clock ?? systemClock;
    const now = () => clock.nowMs();
    const gauges = new ScrapedGauges(this.metrics.registry, this.deadlineMs, this.refreshMs, now);
    gauges.add({
      name: 'fetcher_jobs',
      help: 'Jobs in the job store by status (store-wide)',
      labelNames: ['status'],
      collector: 'job_store',
      read: async () => {
        const counts = await jobs.countByStatus();
        return Object.values(JobStatus).map((status) => ({ labels: { status }, value: counts.get(status) ?? 0 }));
      },
    });
    gauges.add({
      name: 'fetcher_queue_depth',
      help: 'Jobs on the queue waiting for a worker: queued, delayed or prioritized (store-wide)',
      collector: 'queue',
      read: async () => [{ value: await queue.depth() }],
    });
    gauges.add({
      name: 'fetcher_outbox_backlog',
      help: 'Terminal events in the outbox not yet published to the broker (store-wide; only grows without a broker)',
      collector: 'outbox',
      read: async () => [{ value: await outbox.backlog() }],
    });
  }
}
