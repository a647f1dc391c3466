import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BullMqJobQueue } from '../../src/job/queue/bullmq-job-queue.js';
import { InProcessJobQueue } from '../../src/job/queue/in-process-job-queue.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** fetcher_queue_depth reads JobQueue.depth(): jobs waiting for a worker, not the running ones. */
describe('JobQueue.depth', () => {
  const queues: BullMqJobQueue[] = [];
  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.close();
    vi.restoreAllMocks();
  });

  it('BullMQ: counts queued jobs (a re-delivery is a job of its own), and no longer a job a worker took', async () => {
    const queue = new BullMqJobQueue(REDIS_URL, `fetcher-test-depth-${randomUUID().slice(0, 8)}`);
    queues.push(queue);
    expect(await queue.depth()).toBe(0);
    await queue.enqueue('job-a');
    await queue.enqueue('job-a');
    await queue.enqueue('job-b');
    await queue.enqueue('job-b', 'redelivery-1');
    expect(await queue.depth()).toBe(3);

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const taken: string[] = [];
    await queue.start(async (jobId) => {
      taken.push(jobId);
      await held;
    }, 1);
    await vi.waitFor(() => expect(taken).toHaveLength(1), { timeout: 10_000 });
    expect(await queue.depth()).toBe(2);
    release();
    await queue.stop(5_000);
  });

  it('BullMQ: rejects when Redis cannot be reached, so the collector skips the sample', async () => {
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const queue = new BullMqJobQueue('redis://127.0.0.1:1', `fetcher-test-depth-${randomUUID().slice(0, 8)}`);
    queues.push(queue);
    await expect(queue.depth()).rejects.toThrow('redis job counts timed out');
  });

  it('in-process: counts the jobs not yet handed to the handler', async () => {
    const queue = new InProcessJobQueue();
    await queue.enqueue('job-a');
    await queue.enqueue('job-a');
    await queue.enqueue('job-b');
    expect(await queue.depth()).toBe(2);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await queue.start(() => held, 1);
    expect(await queue.depth()).toBe(1);
    release();
    await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
    await queue.stop(1_000);
  });
});
