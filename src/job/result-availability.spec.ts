import { describe, expect, it } from 'vitest';
import type { JobRecord } from './job.entity.js';
import { JobStatus } from './job-status.js';
import { resultAvailability } from './result-availability.js';

const now = new Date('2026-12-01T12:00:00Z');
const job = (patch: Partial<JobRecord>): JobRecord =>
  ({
    status: JobStatus.Completed,
    resultPath: 'external-data/x.json',
    completedAt: new Date('2026-12-01T11:00:00Z'),
    resultDeleteRequestedAt: null,
    resultDeletedAt: null,
    ...patch,
  }) as JobRecord;

describe('resultAvailability', () => {
  it('is available for a completed job with no deletion and no retention', () => {
    expect(resultAvailability(job({}), null, now)).toBe('available');
  });

  it.each([JobStatus.Pending, JobStatus.Processing, JobStatus.Failed])('is not-completed while %s', (status) => {
    expect(resultAvailability(job({ status, resultPath: null }), null, now)).toBe('not-completed');
  });

  it('is deleted from the moment a deletion is asked for, before the object is gone', () => {
    expect(resultAvailability(job({ resultDeleteRequestedAt: now }), null, now)).toBe('deleted');
    expect(resultAvailability(job({ resultDeletedAt: now }), null, now)).toBe('deleted');
  });

  it('is deleted once the retention ran out, whether or not the sweep has run', () => {
    expect(resultAvailability(job({}), 3600, now)).toBe('deleted');
    expect(resultAvailability(job({}), 3601, now)).toBe('available');
  });
});
