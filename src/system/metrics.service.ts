import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from '../common/metrics/metrics.port.js';

/** Jobs last from under a second to the job timeout (hours); the top buckets tell the long ones apart. */
const JOB_DURATION_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600];
/** A free worker claims within milliseconds; minutes mean the workers are saturated or gone. */
const QUEUE_WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900];
/** Most answers take milliseconds; submissions wait for connection tests, downloads stream for long. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

/** Any other method (Node accepts a few dozen) shares one label value. */
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The Prometheus registry of this process: Node defaults, plus what the job, extraction, HTTP and
 * outbox code records here. Label values are bounded sets (outcomes, FET codes, engines, route
 * templates); the only per-process value is the worker id of fetcher_jobs_running. Gauges read from
 * a store at scrape time are registered by MetricsCollectors.
 */
@Injectable()
export class MetricsService implements Metrics {
  readonly registry = new Registry();

  readonly jobsFinished = new Counter({
    name: 'fetcher_jobs_finished_total',
    help: 'Jobs this worker took to an end, by outcome: completed, failed, released (handed back at shutdown), lost (lease lost or cancelled)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'fetcher_job_duration_seconds',
    help: 'Wall time from claim to terminal status, by outcome',
    labelNames: ['outcome'] as const,
    buckets: JOB_DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobsFailed = new Counter({
    name: 'fetcher_jobs_failed_total',
    help: 'Jobs this worker failed, by FET code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  private readonly queueWait = new Histogram({
    name: 'fetcher_job_queue_wait_seconds',
    help: 'Time from a job’s creation to its first claim by a worker',
    buckets: QUEUE_WAIT_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobsRunning = new Gauge({
    name: 'fetcher_jobs_running',
    help: 'Jobs this worker holds a claim on right now',
    labelNames: ['worker'] as const,
    registers: [this.registry],
  });
  private readonly rowsExtracted = new Counter({
    name: 'fetcher_extracted_rows_total',
    help: 'Rows read from datasources into results, by engine (jobs that fail later included)',
    labelNames: ['engine'] as const,
    registers: [this.registry],
  });
  private readonly bytesExtracted = new Counter({
    name: 'fetcher_extracted_bytes_total',
    help: 'Plaintext JSON bytes written into results for a datasource ("configName":{…}), by engine',
    labelNames: ['engine'] as const,
    registers: [this.registry],
  });
  private readonly connectionTests = new Counter({
    name: 'fetcher_connection_tests_total',
    help: 'Connection tests (POST …/test and job submission), by engine, outcome and failure reason',
    labelNames: ['engine', 'outcome', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly httpRequests = new Counter({
    name: 'fetcher_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status (aborted: the client left first)',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'fetcher_http_request_duration_seconds',
    help: 'Time from a request’s arrival to its last byte sent, by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly outboxPublished = new Counter({
    name: 'fetcher_outbox_events_published_total',
    help: 'Terminal events this process relayed to the broker',
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'fetcher_webhook_attempts_total',
    help: 'Webhook delivery attempts this process made, by outcome: delivered (2xx), retry (failed, retried later), dead (failed, retries over)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly outboxFailures = new Counter({
    name: 'fetcher_outbox_relay_failures_total',
    help: 'Outbox relay failures: broker_unavailable or unroutable per publish; store_unavailable per claim or publish record that failed',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly authFailures = new Counter({
    name: 'fetcher_auth_failures_total',
    help: 'Credentials refused (401), by method (apikey, jwt) and reason; a request without any credential is not counted',
    labelNames: ['method', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly authThrottledRequests = new Counter({
    name: 'fetcher_auth_throttled_total',
    help: 'Requests answered 429 without their credential being looked at: the client address had too many failed authentications',
    labelNames: ['method'] as const,
    registers: [this.registry],
  });

  /** What the executor reports per datasource engine (ExecutionOptions.throughput). */
  readonly throughput = {
    rows: (engine: string, rows: number): void => this.rowsExtracted.inc({ engine: engineLabel(engine) }, rows),
    bytes: (engine: string, bytes: number): void => this.bytesExtracted.inc({ engine: engineLabel(engine) }, bytes),
  };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Shows the worker at 0 from its start, so an idle worker is a series and not a gap. */
  workerStarted(workerId: string): void {
    this.jobsRunning.set({ worker: workerId }, 0);
  }

  /** A claim was won; `queuedMs` is creation → claim, given on the job's first attempt only. */
  jobClaimed(workerId: string, queuedMs?: number): void {
    this.jobsRunning.inc({ worker: workerId });
    if (queuedMs !== undefined) this.queueWait.observe(Math.max(0, queuedMs) / 1000);
  }

  /** The worker no longer holds the claim, whatever became of the job. */
  jobClaimEnded(workerId: string): void {
    this.jobsRunning.dec({ worker: workerId });
  }

  jobStarted(): (outcome: string) => void {
    const stopTimer = this.jobDuration.startTimer();
    return (outcome) => {
      stopTimer({ outcome });
      this.jobsFinished.inc({ outcome });
    };
  }

  jobFailed(code: string): void {
    this.jobsFailed.inc({ code });
  }

  /** `failure` is the reason of a failed test (DatasourceConnectError.reason, or `refused`); absent on success. */
  connectionTested(engine: string, failure?: string): void {
    const engineName = engineLabel(engine);
    if (failure === undefined) this.connectionTests.inc({ engine: engineName, outcome: 'success' });
    else this.connectionTests.inc({ engine: engineName, outcome: 'failure', reason: failure });
  }

  /** `status` is undefined when the client went away before the answer was complete. */
  httpServed(method: string, route: string, status: number | undefined, seconds: number): void {
    const methodName = HTTP_METHODS.has(method) ? method : 'OTHER';
    this.httpRequests.inc({ method: methodName, route, status: status === undefined ? 'aborted' : String(status) });
    this.httpDuration.observe({ method: methodName, route }, seconds);
  }

  /** `reason` is AuthError.reason: a bounded set. */
  authFailed(method: string, reason: string): void {
    this.authFailures.inc({ method, reason });
  }

  authThrottled(method: string): void {
    this.authThrottledRequests.inc({ method });
  }

  outboxEventPublished(): void {
    this.outboxPublished.inc();
  }

  outboxRelayFailed(reason: 'broker_unavailable' | 'unroutable' | 'store_unavailable'): void {
    this.outboxFailures.inc({ reason });
  }

  webhookAttempted(outcome: 'delivered' | 'retry' | 'dead'): void {
    this.webhookAttempts.inc({ outcome });
  }
}

/** `POSTGRESQL` → `postgresql`: the API's engine names, in Prometheus' lower case. */
function engineLabel(engine: string | undefined): string {
  return typeof engine === 'string' && engine !== '' ? engine.toLowerCase() : 'unknown';
}
