import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Prometheus registry of this process: Node defaults plus job outcomes and durations. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly jobsFinished = new Counter({
    name: 'fetcher_jobs_finished_total',
    help: 'Jobs this worker finished, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'fetcher_job_duration_seconds',
    help: 'Wall time from claim to terminal status',
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
