import { Logger } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { traceCarrierFrom, type TraceCarrier } from '../../common/tracing/trace-carrier.js';
import { QUEUE_NAME, type JobConsumer, type JobHandler, type JobQueue } from './job-queue.port.js';
import { withDeadline } from '../../engine/concurrency/settles-within.js';
import { RunningJobs } from './running-jobs.js';

/** The data of one BullMQ job: the Fetcher job id and, since tracing, the creating request's trace context. */
interface QueueMessage {
  readonly jobId: string;
  readonly trace?: TraceCarrier;
}

const ENQUEUE_TIMEOUT_MS = 5_000;
/** worker.close(true) waits for Redis; a Redis that stopped answering must not hold the shutdown. */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * BullMQ on Redis. The BullMQ job id is the Fetcher job id, so a second enqueue of a job that is
 * still queued is a no-op. The Worker is created only by `start`, i.e. only in the worker role.
 */
export class BullMqJobQueue implements JobQueue, JobConsumer {
  readonly kind = 'bullmq' as const;
  private readonly logger = new Logger(BullMqJobQueue.name);
  private readonly producerConnection: Redis;
  private readonly queue: Queue;
  private worker?: Worker;
  private readonly running = new RunningJobs();

  constructor(
    private readonly redisUrl: string,
    private readonly prefix: string,
  ) {
    // Fail fast on the request path: with Redis down, enqueue errors instead of waiting forever.
    this.producerConnection = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    this.producerConnection.on('error', (error) => this.logger.warn(`redis (producer): ${error.message}`));
    this.queue = new Queue(QUEUE_NAME, { connection: this.producerConnection, prefix });
    this.queue.on('error', (error) => this.logger.warn(`queue: ${error.message}`));
  }

  async enqueue(jobId: string, deliveryKey?: string, trace?: TraceCarrier): Promise<void> {
    const bullId = deliveryKey ? `${jobId}-${deliveryKey}` : jobId;
    const data: QueueMessage = trace ? { jobId, trace } : { jobId };
    await withDeadline(
      this.queue.add('extract', data, { jobId: bullId, removeOnComplete: true, removeOnFail: true, attempts: 1 }),
      ENQUEUE_TIMEOUT_MS,
      () => new Error('enqueue timed out'),
    );
  }

  async ping(): Promise<void> {
    await withDeadline(this.producerConnection.ping(), 1_000, () => new Error('redis ping timed out'));
  }

  /** Bounded like ping: the Queue waits for Redis to be ready before it sends a command. */
  async depth(): Promise<number> {
    const counts = await withDeadline(
      this.queue.getJobCounts('waiting', 'delayed', 'prioritized'),
      1_000,
      () => new Error('redis job counts timed out'),
    );
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  async start(handler: JobHandler, concurrency: number): Promise<void> {
    const connection = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    connection.on('error', (error) => this.logger.warn(`redis (worker): ${error.message}`));
    this.worker = new Worker(
      QUEUE_NAME,
      async (job) => {
        const { jobId, trace } = job.data as QueueMessage;
        // Messages from before carriers existed have none; a malformed one is dropped, not trusted.
        const carrier = traceCarrierFrom(trace);
        await this.running.run(jobId, (signal) => handler(jobId, signal, carrier));
      },
      { connection, concurrency, autorun: true, prefix: this.prefix },
    );
    this.worker.on('error', (error) => this.logger.warn(`worker: ${error.message}`));
  }

  async stop(graceMs: number): Promise<string[]> {
    const worker = this.worker;
    if (!worker) return [];
    // Stop fetching first; then give running jobs their grace period (worker.close has no timeout).
    await worker.pause(true).catch(() => undefined);
    const stragglers = await this.running.drain(graceMs);
    await withDeadline(worker.close(true), CLOSE_TIMEOUT_MS, () => new Error('worker close timed out')).catch(() => undefined);
    return stragglers;
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.producerConnection.disconnect();
  }
}
