import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { ManualScheduler } from '../common/clock/testing/manual-scheduler.js';
import { FetCode } from '../engine/errors/fet-code.js';
import type { AppConfig } from '../config/app-config.js';
import type { JobErrorInfo, JobRecord } from '../job/job.entity.js';
import type { JobRepository, TerminalEvent } from '../job/job.repository.js';
import { JobStatus } from '../job/job-status.js';
import type { JobQueue } from '../job/queue/job-queue.port.js';
import type { ResultAttempt, ResultStorageService } from '../storage/result-storage.service.js';
import { JobRecovery } from './job-recovery.service.js';

const T0 = '2026-03-01T10:00:00.000Z';
const SECOND = 1_000;
const CONFIG = { leases: { leaseMs: 30 * SECOND, recoveryIntervalMs: 10 * SECOND, maxAttempts: 3 } } as AppConfig;

/** Jobs in memory, with the conditional lease transitions of the real store, timed by the manual clock. */
class MemoryJobStore {
  readonly rows = new Map<string, JobRecord>();
  readonly failed: { id: string; error: JobErrorInfo; event: TerminalEvent; guard: unknown }[] = [];

  constructor(private readonly clock: ManualClock) {}

  add(job: Partial<JobRecord> & Pick<JobRecord, 'id' | 'status'>): void {
    this.rows.set(job.id, {
      attempts: 0,
      workerId: null,
      leaseExpiresAt: null,
      updatedAt: this.clock.now(),
      metadata: {},
      ...job,
    } as JobRecord);
  }

  findExpiredLeases = vi.fn(async (now: Date) =>
    this.select((job) => job.status === JobStatus.Processing && job.leaseExpiresAt !== null && job.leaseExpiresAt < now),
  );

  findStalePending = vi.fn(async (before: Date) => this.select((job) => job.status === JobStatus.Pending && job.updatedAt < before));

  requeueExpired = vi.fn(async (seen: JobRecord, now: Date) => {
    const job = this.heldExpired(seen.id, seen.workerId, now);
    if (!job) return false;
    Object.assign(job, { status: JobStatus.Pending, workerId: null, leaseExpiresAt: null, updatedAt: this.clock.now() });
    return true;
  });

  fail = vi.fn(async (id: string, error: JobErrorInfo, event: TerminalEvent, guard: { workerId?: string; leaseExpiredBefore?: Date }) => {
    const job = this.heldExpired(id, guard.workerId ?? null, guard.leaseExpiredBefore as Date);
    if (!job) return false;
    this.failed.push({ id, error, event, guard });
    Object.assign(job, { status: JobStatus.Failed, error, leaseExpiresAt: null });
    return true;
  });

  touchPending = vi.fn(async (id: string) => {
    const job = this.rows.get(id);
    if (job?.status === JobStatus.Pending) job.updatedAt = this.clock.now();
  });

  private heldExpired(id: string, workerId: string | null, before: Date): JobRecord | undefined {
    const job = this.rows.get(id);
    const held = job?.status === JobStatus.Processing && job.workerId === workerId && job.leaseExpiresAt !== null;
    return held && (job.leaseExpiresAt as Date) < before ? job : undefined;
  }

  private select(matches: (job: JobRecord) => boolean): JobRecord[] {
    return [...this.rows.values()].filter(matches).map((job) => ({ ...job }));
  }
}

describe('JobRecovery', () => {
  let scheduler: ManualScheduler;
  let clock: ManualClock;
  let store: MemoryJobStore;
  /** Each enqueue as `jobId[/deliveryKey] @ hh:mm:ss` of the clock. */
  let queued: string[];
  let discarded: { jobId: string; attempt: ResultAttempt }[];
  let warn: ReturnType<typeof vi.spyOn>;
  let recovery: JobRecovery;

  const at = () => clock.now().toISOString().slice(11, 19);

  beforeEach(() => {
    warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    clock = new ManualClock(T0);
    scheduler = new ManualScheduler(clock);
    store = new MemoryJobStore(clock);
    queued = [];
    discarded = [];
    const queue = {
      enqueue: async (jobId: string, deliveryKey?: string) => void queued.push(`${jobId}${deliveryKey ? `/${deliveryKey}` : ''} @ ${at()}`),
    } as unknown as JobQueue;
    const storage = {
      discardAttempt: async (jobId: string, attempt: ResultAttempt) => void discarded.push({ jobId, attempt }),
    } as unknown as ResultStorageService;
    recovery = new JobRecovery(CONFIG, store as unknown as JobRepository, queue, storage, clock, scheduler);
  });

  afterEach(async () => {
    await recovery.stop();
    vi.restoreAllMocks();
  });

  it('re-queues a processing job at the first sweep after its lease ran out, under a new delivery key', async () => {
    store.add({
      id: 'j1',
      status: JobStatus.Processing,
      attempts: 1,
      workerId: 'w-dead',
      leaseExpiresAt: new Date(Date.parse(T0) + 25 * SECOND),
    });

    await recovery.start();
    await scheduler.advance(20 * SECOND);
    expect(queued).toEqual([]);
    await scheduler.advance(10 * SECOND);

    expect(queued).toEqual(['j1/r1 @ 10:00:30']);
    expect(store.rows.get('j1')).toMatchObject({ status: JobStatus.Pending, workerId: null });
    // The dead worker may have uploaded its attempt: that object will never be committed.
    expect(discarded).toEqual([{ jobId: 'j1', attempt: { attempt: 1, workerId: 'w-dead' } }]);
  });

  it('fails with FET-1106 a job whose worker vanished on its last allowed attempt, and does not queue it', async () => {
    store.add({ id: 'j1', status: JobStatus.Processing, attempts: 3, workerId: 'w-dead', leaseExpiresAt: new Date(Date.parse(T0) - 1) });

    await recovery.start();

    const error = {
      code: FetCode.JobAbandoned,
      message: 'the job was abandoned: its worker stopped responding 3 times (the limit is 3 attempts); nothing was stored',
    };
    expect(store.failed).toEqual([
      {
        id: 'j1',
        error,
        event: expect.objectContaining({ id: 'fetcher.job.failed.j1', eventType: 'job.failed' }),
        guard: { workerId: 'w-dead', leaseExpiredBefore: new Date(T0) },
      },
    ]);
    expect(store.rows.get('j1')?.status).toBe(JobStatus.Failed);
    expect(queued).toEqual([]);
    expect(discarded).toEqual([{ jobId: 'j1', attempt: { attempt: 3, workerId: 'w-dead' } }]);
  });

  it('leaves alone a job whose worker keeps renewing its lease', async () => {
    store.add({
      id: 'j1',
      status: JobStatus.Processing,
      attempts: 1,
      workerId: 'w-live',
      leaseExpiresAt: new Date(Date.parse(T0) + 30 * SECOND),
    });
    await recovery.start();
    for (let step = 0; step < 12; step += 1) {
      (store.rows.get('j1') as JobRecord).leaseExpiresAt = new Date(clock.nowMs() + 30 * SECOND);
      await scheduler.advance(10 * SECOND);
    }
    expect(store.findExpiredLeases).toHaveBeenCalledTimes(13);
    expect(store.rows.get('j1')?.status).toBe(JobStatus.Processing);
    expect(queued).toEqual([]);
    expect(discarded).toEqual([]);
  });

  it('does nothing to a job another sweep recovered first', async () => {
    store.add({ id: 'j1', status: JobStatus.Processing, attempts: 1, workerId: 'w-dead', leaseExpiresAt: new Date(Date.parse(T0) - 1) });
    // Another worker's sweep re-queued it, and its new worker claimed it, between our read and our update.
    store.requeueExpired.mockImplementationOnce(async () => {
      Object.assign(store.rows.get('j1') as JobRecord, { workerId: 'w-new', leaseExpiresAt: new Date(Date.parse(T0) + 30 * SECOND) });
      return false;
    });
    await recovery.start();
    expect(queued).toEqual([]);
    expect(discarded).toEqual([]);
  });

  it('queues again a pending job nobody picked up for a lease period, then leaves it a lease period more', async () => {
    store.add({ id: 'p1', status: JobStatus.Pending });

    await recovery.start();
    await scheduler.advance(90 * SECOND);

    // Sweeps every 10 s; the job is stale once untouched for more than 30 s.
    expect(queued).toEqual(['p1 @ 10:00:40', 'p1 @ 10:01:20']);
  });

  it('logs a sweep that fails, and sweeps again on time', async () => {
    store.findExpiredLeases.mockRejectedValueOnce(new Error('store down'));
    store.add({ id: 'j1', status: JobStatus.Processing, attempts: 1, workerId: 'w-dead', leaseExpiresAt: new Date(Date.parse(T0) - 1) });

    await expect(recovery.start()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith('recovery sweep failed: Error: store down');
    await scheduler.advance(10 * SECOND);
    expect(queued).toEqual(['j1/r1 @ 10:00:10']);
  });

  it('stop cancels the next sweep and waits for the one running', async () => {
    await recovery.start();
    let finishSweep: () => void = () => undefined;
    store.findStalePending.mockImplementationOnce(() => new Promise((resolve) => (finishSweep = () => resolve([]))));
    const sweeping = scheduler.advance(10 * SECOND);
    await vi.waitFor(() => expect(store.findStalePending).toHaveBeenCalledTimes(2));

    let stopped = false;
    const stopping = recovery.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finishSweep();
    await Promise.all([stopping, sweeping]);
    expect(stopped).toBe(true);

    await scheduler.advance(60 * SECOND);
    expect(store.findExpiredLeases).toHaveBeenCalledTimes(2);
  });
});
