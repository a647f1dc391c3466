import { describe, expect, it } from 'vitest';
import type { ResultPart } from '../../engine/formats/result-parts.js';
import type { JobRecord } from '../job.entity.js';
import { JobStatus } from '../job-status.js';
import { JobResponseDto } from './job-response.dto.js';
import { JobSummaryDto } from './job-summary.dto.js';

const ID = '0190f3c2-0000-7000-8000-0000000000c1';
const AT = new Date('2026-03-01T10:00:00.000Z');
const PART: ResultPart = {
  datasource: 'pg',
  table: 'accounting.invoices',
  path: `external-data/${ID}/pg/accounting.invoices.csv.gz`,
  format: 'csv',
  compression: 'gzip',
  sizeBytes: 80,
  rowCount: 2,
  sha256: 'e'.repeat(64),
  hmac: 'f'.repeat(64),
};

function completed(extra: Partial<JobRecord> = {}): JobRecord {
  return {
    id: ID,
    status: JobStatus.Completed,
    requestHash: 'h'.repeat(64),
    dedupKey: null,
    metadata: { source: 'reporter' },
    productName: 'reporter',
    mappedFields: { pg: { 'accounting.invoices': ['*'] } },
    filters: null,
    limits: null,
    createdAt: AT,
    updatedAt: AT,
    startedAt: AT,
    completedAt: AT,
    attempts: 1,
    workerId: null,
    leaseExpiresAt: null,
    resultPath: `external-data/${ID}.json`,
    resultHmac: 'a'.repeat(64),
    resultSha256: 'b'.repeat(64),
    resultSizeBytes: 300,
    resultRowCount: 2,
    resultRowCounts: { pg: { 'accounting.invoices': 2 } },
    resultKeyVersion: '1',
    error: null,
    progress: null,
    resultDeleteRequestedAt: null,
    resultDeletedAt: null,
    ...extra,
  };
}

describe('job responses and output', () => {
  it('show the default output on every job, a job of before formats included, and no parts', () => {
    for (const job of [completed(), completed({ output: null, resultParts: null })]) {
      const dto = JobResponseDto.from(job);
      expect(dto.output).toEqual({ format: 'json', compression: 'none' });
      expect(Object.keys(dto.result ?? {}).sort()).toEqual(['rowCount', 'rowCounts', 'sha256', 'sizeBytes']);
      const summary = JobSummaryDto.from(job);
      expect(summary).not.toHaveProperty('output');
      expect(Object.keys(summary.result ?? {}).sort()).toEqual(['rowCount', 'sha256', 'sizeBytes']);
    }
  });

  it('show a per-table result’s parts beside the manifest’s digests, in the job and in its summary', () => {
    const job = completed({ output: { format: 'csv', compression: 'gzip' }, resultParts: [PART] });
    const dto = JobResponseDto.from(job);
    expect(dto.output).toEqual({ format: 'csv', compression: 'gzip' });
    expect(dto.result).toEqual({ sizeBytes: 300, rowCount: 2, sha256: 'b'.repeat(64), rowCounts: job.resultRowCounts, parts: [PART] });
    const summary = JobSummaryDto.from(job);
    expect(summary.output).toEqual({ format: 'csv', compression: 'gzip' });
    expect(summary.result?.parts).toEqual([PART]);
  });

  it('show the output of a pending job, which has no result yet', () => {
    const pending = completed({ status: JobStatus.Pending, output: { format: 'ndjson', compression: 'gzip' }, resultSha256: null });
    expect(JobResponseDto.from(pending).output).toEqual({ format: 'ndjson', compression: 'gzip' });
    expect(JobResponseDto.from(pending)).not.toHaveProperty('result');
  });
});
