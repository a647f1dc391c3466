import { Logger } from '@nestjs/common';
import type { TraceCarrier } from '../../common/tracing/trace-carrier.js';
import type { JobConsumer, JobHandler, JobQueue } from './job-queue.port.js';
import { RunningJobs } from './running-jobs.js';

/**
 * The embedded queue: a FIFO in this process with the same handler and concurrency as BullMQ.
 * Lost on restart by design; the worker re-enqueues pending jobs from the database when it starts.
 */
export class InProcessJobQueue implements JobQueue, JobConsumer {
  readonly kind = 'in-process' as const;
  private readonly logger = new Logger(InProcessJobQueue.name);
  private readonly waiting: Array<{ readonly jobId: string; readonly trace?: TraceCarrier }> = [];
  private readonly queued = new Set<string>();
  private readonly running = new RunningJobs();
  private handler?: JobHandler;
  private concurrency = 1;
  private stopping = false;

  async enqueue(jobId: string, _deliveryKey?: string, trace?: TraceCarrier): Promise<void> {
    if (this.queued.has(jobId)) return;
    this.queued.add(jobId);
    this.waiting.push({ jobId, trace });
    this.pump();
  }

  async ping(): Promise<void> {}

  async depth(): Promise<number> {
    return this.waiting.length;
  }

  async start(handler: JobHandler, concurrency: number): Promise<void> {
    this.handler = handler;
    this.concurrency = concurrency;
    this.stopping = false;
    this.pump();
  }

  async stop(graceMs: number): Promise<string[]> {
    this.stopping = true;
    return this.running.drain(graceMs);
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler) return;
    while (!this.stopping && this.running.size < this.concurrency && this.waiting.length > 0) {
      const { jobId, trace } = this.waiting.shift() as { jobId: string; trace?: TraceCarrier };
      this.queued.delete(jobId);
      void this.running
        .run(jobId, (signal) => handler(jobId, signal, trace))
        .catch((error: unknown) => this.logger.error(`job ${jobId} handler failed: ${String(error)}`, { jobId }))
        .finally(() => this.pump());
    }
  }
}
