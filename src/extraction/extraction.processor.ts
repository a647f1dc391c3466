import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { runDetached } from '../common/logging/detached-context.js';
import { ATTR, SPAN } from '../engine/tracing/span-names.js';
import type { TraceCarrier } from '../common/tracing/trace-carrier.js';
import { Tracing } from '../common/tracing/tracing.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { jobLogFields, type JobLogFields } from '../job/job-log-fields.js';
import { JobRepository } from '../job/job.repository.js';
import { JobStatus } from '../job/job-status.js';
import { JOB_CONSUMER, JOB_QUEUE, type JobConsumer, type JobQueue } from '../job/queue/job-queue.port.js';
import { Metrics } from '../common/metrics/metrics.port.js';
import { ExtractionService } from './extraction.service.js';
import { JobRecovery } from './job-recovery.service.js';
import { MemoryGuard } from './memory-guard.js';

/** The queue consumer and the recovery sweep. Only the worker role imports the module that declares it. */
@Injectable()
export class ExtractionProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ExtractionProcessor.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_CONSUMER) private readonly consumer: JobConsumer,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    private readonly jobs: JobRepository,
    private readonly extraction: ExtractionService,
    private readonly recovery: JobRecovery,
    private readonly metrics: Metrics,
    private readonly memory: MemoryGuard,
    @Optional() private readonly tracing: Tracing = Tracing.disabled(),
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const embedded = this.queue.kind === 'in-process';
    await this.consumer.start(
      // A delivery of the embedded queue starts inside the request that queued it: its lines are not that request's.
      (jobId, signal, trace) => runDetached(() => this.traced(jobId, signal, trace)),
      this.config.worker.concurrency,
    );
    if (embedded) {
      // The embedded queue lives in memory: jobs accepted before a restart are still pending in the store.
      const pending = await this.jobs.findIdsByStatus(JobStatus.Pending);
      for (const jobId of pending) await this.queue.enqueue(jobId);
      if (pending.length > 0) this.logger.log(`re-queued ${pending.length} pending job(s) from the store`);
    }
    await this.recovery.start();
    this.logger.log(`worker ${this.extraction.workerId} consuming (${this.queue.kind}, concurrency ${this.config.worker.concurrency})`);
  }

  /**
   * Stop taking jobs; running ones get SHUTDOWN_GRACE_MS, then are aborted and handed back to
   * pending. A handler that has not stopped a few seconds after its abort is left behind and its
   * job handed back here, so the process always exits; should that handler wake up later, its
   * commit no longer matches the job's claim.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const stragglers = await this.consumer.stop(this.config.worker.shutdownGraceMs);
    for (const jobId of stragglers) {
      // Read before the release: the attempt this worker gives up is the record's until then.
      const log = await this.logFieldsOf(jobId);
      const released = await this.jobs
        .release(jobId, this.extraction.workerId, 'worker shut down before the job stopped')
        .catch(() => false);
      this.logger.warn(`job ${jobId} did not stop in time; ${released ? 'handed back to pending' : 'left to the recovery sweep'}`, log);
    }
    await this.recovery.stop();
  }

  /** The job's log fields, or its id alone when the store cannot say (it may be what is failing at shutdown). */
  private async logFieldsOf(jobId: string): Promise<JobLogFields> {
    try {
      const job = await this.jobs.findById(jobId);
      if (job) return jobLogFields(job);
    } catch {
      // the id alone
    }
    return { jobId };
  }

  /** One span per delivery, in the trace of the request that created the job when the queue carried it. */
  private traced(jobId: string, signal: AbortSignal, trace?: TraceCarrier): Promise<void> {
    return this.tracing.continueTrace(trace, SPAN.job, { [ATTR.jobId]: jobId }, () => this.handle(jobId, signal));
  }

  private async handle(jobId: string, signal: AbortSignal): Promise<void> {
    // Over its memory limit the worker keeps the delivery but claims nothing until memory falls.
    await this.memory.waitForHeadroom(signal);
    if (signal.aborted) return;
    const finished = this.metrics.jobStarted();
    const outcome = await this.extraction.process(jobId, signal);
    this.tracing.annotate({ [ATTR.jobOutcome]: outcome });
    if (outcome !== 'skipped') finished(outcome);
  }
}
