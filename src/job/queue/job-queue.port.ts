import type { TraceCarrier } from '../../common/tracing/trace-carrier.js';

/** Puts a job id on the queue. The job row is the source of truth; the queue only carries ids. */
export interface JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  /**
   * Idempotent per (jobId, deliveryKey): the first delivery of a job has no key; a re-delivery
   * after a lost worker passes one, so it is not mistaken for the dead worker's delivery, which the
   * queue may still hold as running. `trace`: the trace context of the request that created the
   * job, handed to the handler so the job's spans join that trace (re-deliveries have none).
   */
  enqueue(jobId: string, deliveryKey?: string, trace?: TraceCarrier): Promise<void>;
  /** Readiness probe: throws when jobs cannot be enqueued. */
  ping(): Promise<void>;
  /** Jobs waiting for a worker (queued, delayed or prioritized; not running), for /metrics. */
  depth(): Promise<number>;
}

/**
 * Handles one delivered job id. `signal` aborts when the worker shuts down past its grace period;
 * `trace` is the carrier given to `enqueue`, if any (a message from an older version has none).
 */
export type JobHandler = (jobId: string, signal: AbortSignal, trace?: TraceCarrier) => Promise<void>;

/** Takes job ids off the queue (worker role only). */
export interface JobConsumer {
  start(handler: JobHandler, concurrency: number): Promise<void>;
  /**
   * Stops taking jobs; waits up to `graceMs` for running ones, then aborts them, and returns within a
   * few seconds more with the ids of handlers that still had not stopped (for the caller to hand back).
   */
  stop(graceMs: number): Promise<string[]>;
}

export const JOB_QUEUE = Symbol('JOB_QUEUE');
export const JOB_CONSUMER = Symbol('JOB_CONSUMER');
export const QUEUE_NAME = 'fetcher-extraction';
