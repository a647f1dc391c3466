import { describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import type { JobRepository } from '../job/job.repository.js';
import type { JobConsumer, JobQueue } from '../job/queue/job-queue.port.js';
import type { MetricsService } from '../system/metrics.service.js';
import { ExtractionProcessor } from './extraction.processor.js';
import type { ExtractionService } from './extraction.service.js';
import type { JobRecovery } from './job-recovery.service.js';
import type { MemoryGuard } from './memory-guard.js';

describe('ExtractionProcessor shutdown', () => {
  it('hands back the jobs whose handlers did not stop after their abort, then stops the sweep', async () => {
    const order: string[] = [];
    const consumer = { stop: vi.fn(async () => (order.push('stop'), ['stuck-1', 'stuck-2'])) } as unknown as JobConsumer;
    const release = vi.fn(async (jobId: string) => (order.push(`release ${jobId}`), jobId === 'stuck-1'));
    const recovery = { stop: vi.fn(async () => void order.push('sweep stopped')) } as unknown as JobRecovery;
    const processor = new ExtractionProcessor(
      { worker: { concurrency: 1, shutdownGraceMs: 1_000, maxRssBytes: 0 } } as AppConfig,
      consumer,
      {} as JobQueue,
      { release, findById: async () => null } as unknown as JobRepository,
      { workerId: 'host:1:abcd' } as ExtractionService,
      recovery,
      {} as MetricsService,
      {} as MemoryGuard,
    );
    await processor.beforeApplicationShutdown();
    expect(consumer.stop).toHaveBeenCalledWith(1_000);
    expect(release).toHaveBeenCalledWith('stuck-1', 'host:1:abcd', 'worker shut down before the job stopped');
    expect(order).toEqual(['stop', 'release stuck-1', 'release stuck-2', 'sweep stopped']);
  });

  it('still stops when the job store cannot take the hand-back (the sweep recovers those jobs)', async () => {
    const processor = new ExtractionProcessor(
      { worker: { concurrency: 1, shutdownGraceMs: 0, maxRssBytes: 0 } } as AppConfig,
      { stop: async () => ['stuck'] } as unknown as JobConsumer,
      {} as JobQueue,
      {
        release: () => Promise.reject(new Error('store down')),
        findById: () => Promise.reject(new Error('store down')),
      } as unknown as JobRepository,
      { workerId: 'w' } as ExtractionService,
      { stop: async () => undefined } as unknown as JobRecovery,
      {} as MetricsService,
      {} as MemoryGuard,
    );
    await expect(processor.beforeApplicationShutdown()).resolves.toBeUndefined();
  });
});
