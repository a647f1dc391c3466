import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceCarrier } from '../../src/common/tracing/trace-carrier.js';
import { BullMqJobQueue } from '../../src/job/queue/bullmq-job-queue.js';
import { InProcessJobQueue } from '../../src/job/queue/in-process-job-queue.js';
import { QUEUE_NAME } from '../../src/job/queue/job-queue.port.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CARRIER: TraceCarrier = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=abc' };

type Delivery = { jobId: string; trace?: TraceCarrier };

/** Collects deliveries; `next(id)` resolves with the delivery of that job id. */
function recorder() {
  const waiting = new Map<string, (delivery: Delivery) => void>();
  const seen = new Map<string, Delivery>();
  return {
    handler: async (jobId: string, _signal: AbortSignal, trace?: TraceCarrier) => {
      const delivery = { jobId, trace };
      seen.set(jobId, delivery);
      waiting.get(jobId)?.(delivery);
    },
    next: (jobId: string) =>
      new Promise<Delivery>((resolve, reject) => {
        const known = seen.get(jobId);
        if (known) return resolve(known);
        waiting.set(jobId, resolve);
        setTimeout(() => reject(new Error(`job ${jobId} was not delivered`)), 10_000).unref();
      }),
  };
}

describe('the BullMQ queue carries the trace context of the request that created a job', () => {
  // A prefix of its own: nothing else on this Redis sees these jobs, and they are removed after.
  const prefix = `fetcher-test-trace-${randomUUID().slice(0, 8)}`;
  const deliveries = recorder();
  let queue: BullMqJobQueue;
  let raw: Queue;

  beforeAll(async () => {
    queue = new BullMqJobQueue(REDIS_URL, prefix);
    await queue.start(deliveries.handler, 2);
    raw = new Queue(QUEUE_NAME, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix });
  });

  afterAll(async () => {
    await queue?.stop(1_000);
    await queue?.close();
    await raw?.obliterate({ force: true }).catch(() => undefined);
    await raw?.close();
  });

  it('hands the carrier given to enqueue to the handler, and none when none was given', async () => {
    await queue.enqueue('job-with-trace', undefined, CARRIER);
    await queue.enqueue('job-without-trace');
    expect(await deliveries.next('job-with-trace')).toEqual({ jobId: 'job-with-trace', trace: CARRIER });
    expect(await deliveries.next('job-without-trace')).toEqual({ jobId: 'job-without-trace', trace: undefined });
  });

  it('delivers a message written by an older version (no carrier) and drops a malformed carrier', async () => {
    await raw.add('extract', { jobId: 'job-from-older-version' }, { jobId: 'job-from-older-version', removeOnComplete: true });
    await raw.add(
      'extract',
      { jobId: 'job-odd-carrier', trace: { traceparent: 42 } },
      { jobId: 'job-odd-carrier', removeOnComplete: true },
    );
    expect(await deliveries.next('job-from-older-version')).toEqual({ jobId: 'job-from-older-version', trace: undefined });
    expect(await deliveries.next('job-odd-carrier')).toEqual({ jobId: 'job-odd-carrier', trace: undefined });
  });

  it('stores only traceparent and tracestate in the message', async () => {
    await raw.pause();
    try {
      await queue.enqueue('job-inspected', undefined, CARRIER);
      const stored = await raw.getJob('job-inspected');
      expect(stored?.data).toEqual({ jobId: 'job-inspected', trace: CARRIER });
    } finally {
      await raw.resume();
    }
    await deliveries.next('job-inspected');
  });
});

describe('the in-process queue keeps the carrier with the job id', () => {
  it('hands each job its own carrier', async () => {
    const queue = new InProcessJobQueue();
    const deliveries = recorder();
    await queue.enqueue('a', undefined, CARRIER);
    await queue.enqueue('b');
    await queue.start(deliveries.handler, 1);
    expect(await deliveries.next('a')).toEqual({ jobId: 'a', trace: CARRIER });
    expect(await deliveries.next('b')).toEqual({ jobId: 'b', trace: undefined });
    await queue.stop(100);
  });
});
