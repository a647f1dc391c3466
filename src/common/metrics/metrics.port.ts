/**
 * What the domains record for the operator's dashboards: a port, so that auth, datasource, events,
 * webhook and extraction need nothing of the system module that serves /metrics. The Prometheus
 * adapter is system/metrics.service.ts (MetricsService), provided under this token. Label values
 * must be bounded sets (outcomes, FET codes, engines, reasons).
 */
export abstract class Metrics {
  /** What the executor reports per datasource engine (ExecutionOptions.throughput). */
  abstract readonly throughput: {
    rows(engine: string, rows: number): void;
    bytes(engine: string, bytes: number): void;
  };

  /** Shows the worker at 0 from its start, so an idle worker is a series and not a gap. */
  abstract workerStarted(workerId: string): void;

  /** A claim was won; `queuedMs` is creation → claim, given on the job's first attempt only. */
  abstract jobClaimed(workerId: string, queuedMs?: number): void;

  /** The worker no longer holds the claim, whatever became of the job. */
  abstract jobClaimEnded(workerId: string): void;

  /** Starts timing one job; the returned function records how it ended and how long it took. */
  abstract jobStarted(): (outcome: string) => void;

  abstract jobFailed(code: string): void;

  /** `failure` is the reason of a failed test (DatasourceConnectError.reason, or `refused`); absent on success. */
  abstract connectionTested(engine: string, failure?: string): void;

  /** `reason` is AuthError.reason: a bounded set. */
  abstract authFailed(method: string, reason: string): void;

  abstract authThrottled(method: string): void;

  abstract outboxEventPublished(): void;

  abstract outboxRelayFailed(reason: 'broker_unavailable' | 'unroutable' | 'store_unavailable'): void;

  abstract webhookAttempted(outcome: 'delivered' | 'retry' | 'dead'): void;
}
