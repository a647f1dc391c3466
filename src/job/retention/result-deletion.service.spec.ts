import { describe, expect, it } from 'vitest';
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
  const store = {
    delete: async (key: string) => {
      if (key === failOn) throw new Error('injected: the store is unreachable');
      steps.push(`delete ${key}`);
    },
  } as unknown as ObjectStore;
  const retention = {
    requestResultDeletion: async () => (steps.push('intent'), true),
    recordResultDeleted: async () => void steps.push('deleted'),
  } as unknown as ResultRetentionRepository;
  return { steps, service: new ResultDeletionService({} as JobRepository, retention, store) };
}

const job = (extra: Partial<JobRecord>) =>
  ({ id: ID, status: JobStatus.Completed, resultPath: `external-data/${ID}.json`, resultDeletedAt: null, ...extra }) as JobRecord;

describe('ResultDeletionService.delete', () => {
  it('deletes a one-object result’s object between the two records', async () => {
    const { steps, service } = build();
    await service.delete(job({}));
    expect(steps).toEqual(['intent', `delete external-data/${ID}.json`, 'deleted']);
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
