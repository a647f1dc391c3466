import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../common/clock/testing/manual-clock.js';
import { ManualScheduler } from '../../common/clock/testing/manual-scheduler.js';
import type { AppConfig } from '../../config/app-config.js';
import type { JobRecord } from '../job.entity.js';
import type { ResultDeletionService } from './result-deletion.service.js';
import type { ResultRetentionRepository } from './result-retention.repository.js';
import { ResultRetentionSweep } from './result-retention.sweep.js';

const MINUTE = 60_000;

describe('ResultRetentionSweep', () => {
  let clock: ManualClock;
  let scheduler: ManualScheduler;
  /** Each lookup as `hh:mm cutoff`, the cutoff being the completedAt before which results are due. */
  let lookups: string[];
  let due: JobRecord[];
  let deleted: string[];
  let sweep: ResultRetentionSweep;

  const hhmm = (date: Date | null) => date?.toISOString().slice(11, 16) ?? 'none';

  function build(retentionSeconds: number | null): ResultRetentionSweep {
    const config = { results: { retentionSeconds, sweepIntervalMs: 10 * MINUTE } } as AppConfig;
    const retention = {
      findResultsToDelete: async (completedBefore: Date | null) => {
        lookups.push(`${hhmm(clock.now())} ${hhmm(completedBefore)}`);
        return due.splice(0);
      },
    } as unknown as ResultRetentionRepository;
    const deletion = { delete: async (job: JobRecord) => void deleted.push(job.id) } as unknown as ResultDeletionService;
    return new ResultRetentionSweep(config, retention, deletion, clock, scheduler);
  }

  beforeEach(() => {
    vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    scheduler = new ManualScheduler(clock);
    lookups = [];
    due = [];
    deleted = [];
    sweep = build(3_600);
  });

  afterEach(async () => {
    await sweep.onApplicationShutdown();
    vi.restoreAllMocks();
  });

  it('sweeps once the application has started, then every interval, deleting what completed before the retention', async () => {
    due = [{ id: 'old' } as JobRecord];
    sweep.onApplicationBootstrap();
    expect(lookups).toEqual([]);
    await scheduler.runDue();
    await scheduler.advance(20 * MINUTE);

    expect(lookups).toEqual(['10:00 09:00', '10:10 09:10', '10:20 09:20']);
    expect(deleted).toEqual(['old']);
  });

  it('without a retention, only finishes the deletions a crash interrupted', async () => {
    sweep = build(null);
    sweep.onApplicationBootstrap();
    await scheduler.runDue();
    expect(lookups).toEqual(['10:00 none']);
  });

  it('stops sweeping at shutdown', async () => {
    sweep.onApplicationBootstrap();
    await scheduler.runDue();
    await sweep.onApplicationShutdown();
    await scheduler.advance(60 * MINUTE);
    expect(lookups).toEqual(['10:00 09:00']);
    expect(scheduler.pending).toBe(0);
  });
});
