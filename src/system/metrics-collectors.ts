import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { OutboxRepository } from '../events/outbox.repository.js';
import { JobListRepository } from '../job/job-list.repository.js';
import { JobStatus } from '../job/job-status.js';
import { JOB_QUEUE, type JobQueue } from '../job/queue/job-queue.port.js';
import { MetricsService } from './metrics.service.js';
import { ScrapedGauges } from './metrics-scraped-gauge.js';

/** How long one scrape waits for a store before leaving its metric out. */
export const METRICS_COLLECT_DEADLINE_MS = Symbol('METRICS_COLLECT_DEADLINE_MS');
const DEFAULT_DEADLINE_MS = 2_000;

/**
 * The gauges read at scrape time from the shared stores: jobs by status (job store), queue depth
 * (Redis or the in-process queue) and the outbox backlog. They describe the whole deployment, so
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
  ) {}

  /** Registers the gauges on the process's registry. */
  onModuleInit(): void {
    const { jobs, queue, outbox } = this;
    const gauges = new ScrapedGauges(this.metrics.registry, this.deadlineMs);
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
