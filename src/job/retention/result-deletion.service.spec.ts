import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock/testing/manual-clock.js';
import type { ObjectStore } from '../../storage/object-store.port.js';
import type { JobRecord } from '../job.entity.js';
import type { JobRepository } from '../job.repository.js';
import { JobStatus } from '../job-status.js';
import { ResultDeletionService } from './result-deletion.service.js';
import type { ResultRetentionRepository } from './result-retention.repository.js';

const ID = '0190f3c2-0000-7000-8000-0000000000e1';
const part = (table: string) => ({
  datasource: 'pg',
  table,
  path: `external-data/${ID}/pg/${table}.csv`,
  format: 'csv' as const,
  compression: 'none' as const,
  sizeBytes: 1,
  rowCount: 1,
  sha256: 'a'.repeat(64),
});

function build(failOn?: string) {
  const steps: string[] = [];
  const stamps: string[] = [];
  const clock = new ManualClock('2026-12-07T10:00:00Z');
  const store = {
    delete: async (key: string) => {
      if (key === failOn) throw new Error('injected: the store is unreachable');
      steps.push(`delete ${key}`);
    },
  } as unknown as ObjectStore;
  const retention = {
    requestResultDeletion: async (_id: string, at: Date) => (
      steps.push('intent'),
      stamps.push(at.toISOString()),
      clock.advance(1_000),
      true
    ),
    recordResultDeleted: async (_id: string, at: Date) => void (steps.push('deleted'), stamps.push(at.toISOString())),
  } as unknown as ResultRetentionRepository;
  return { steps, stamps, service: new ResultDeletionService({} as JobRepository, retention, store, clock) };
}

const job = (extra: Partial<JobRecord>) =>
  ({ id: ID, status: JobStatus.Completed, resultPath: `external-data/${ID}.json`, resultDeletedAt: null, ...extra }) as JobRecord;

describe('ResultDeletionService.delete', () => {
  it('deletes a one-object result’s object between the two records', async () => {
    const { steps, stamps, service } = build();
    await service.delete(job({}));
    expect(steps).toEqual(['intent', `delete external-data/${ID}.json`, 'deleted']);
    // Each record is stamped with the clock's time when it is written.
    expect(stamps).toEqual(['2026-12-07T10:00:00.000Z', '2026-12-07T10:00:01.000Z']);
  });

  it('deletes every part of a per-table result, then its manifest', async () => {
    const { steps, service } = build();
    await service.delete(job({ resultParts: [part('a'), part('b')] }));
    expect(steps).toEqual([
      'intent',
      `delete external-data/${ID}/pg/a.csv`,
      `delete external-data/${ID}/pg/b.csv`,
      `delete external-data/${ID}.json`,
      'deleted',
    ]);
  });

  it('does not record the deletion done when a part could not be deleted: the sweep finishes it', async () => {
    const { steps, service } = build(`external-data/${ID}/pg/b.csv`);
    await expect(service.delete(job({ resultParts: [part('a'), part('b')] }))).rejects.toThrow('injected');
    expect(steps).toEqual(['intent', `delete external-data/${ID}/pg/a.csv`]);
  });
});
