import { describe, expect, it } from 'vitest';
import type { PlannedTable } from '../engine/extract-request.js';
import { JobProgressTracker } from './job-progress.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';

const planned: PlannedTable[] = [
  { datasource: 'pg_main', table: 'accounts', engine: 'POSTGRESQL' },
  { datasource: 'pg_main', table: 'accounting.invoices', engine: 'POSTGRESQL' },
  { datasource: 'mysql_crm', table: 'leads', engine: 'MYSQL' },
];

const rows = (datasource: string, table: string, count: number) =>
  ({ type: 'rows', datasource, table, engine: 'POSTGRESQL', rows: count, totalRows: 0 }) as const;

describe('JobProgressTracker', () => {
  const startedAt = new Date('2026-12-01T10:00:00Z');

  it('starts every planned table as pending with no rows', () => {
    const progress = new JobProgressTracker(planned, startedAt, new ManualClock('2026-12-01T10:00:01Z')).snapshot();
    expect(progress).toEqual({
      rowsRead: 0,
      bytesWritten: 0,
      startedAt: '2026-12-01T10:00:00.000Z',
      updatedAt: '2026-12-01T10:00:01.000Z',
      tables: {
        pg_main: { accounts: { status: 'pending', rows: 0 }, 'accounting.invoices': { status: 'pending', rows: 0 } },
        mysql_crm: { leads: { status: 'pending', rows: 0 } },
      },
    });
  });

  it('follows tables from reading to done and sums rows and bytes across them', () => {
    const tracker = new JobProgressTracker(planned, startedAt, new ManualClock());
    tracker.record({ type: 'table', datasource: 'pg_main', table: 'accounts', status: 'reading', rows: 0 });
    tracker.record(rows('pg_main', 'accounts', 2000));
    tracker.record(rows('pg_main', 'accounts', 40));
    tracker.record({ type: 'table', datasource: 'pg_main', table: 'accounts', status: 'done', rows: 2040 });
    tracker.record({ type: 'table', datasource: 'mysql_crm', table: 'leads', status: 'reading', rows: 0 });
    tracker.record(rows('mysql_crm', 'leads', 7));
    tracker.record({ type: 'bytes', bytes: 1000, totalBytes: 1000 });
    tracker.record({ type: 'bytes', bytes: 24, totalBytes: 1024, engine: 'MYSQL' });
    const progress = tracker.snapshot();
    expect(progress.rowsRead).toBe(2047);
    expect(progress.bytesWritten).toBe(1024);
    expect(progress.tables.pg_main).toEqual({
      accounts: { status: 'done', rows: 2040 },
      'accounting.invoices': { status: 'pending', rows: 0 },
    });
    expect(progress.tables.mysql_crm).toEqual({ leads: { status: 'reading', rows: 7 } });
  });

  it('hands out copies: a snapshot being written does not change under the writer', () => {
    const tracker = new JobProgressTracker(planned, startedAt, new ManualClock());
    const before = tracker.snapshot();
    tracker.record(rows('pg_main', 'accounts', 5));
    expect(before.tables.pg_main.accounts.rows).toBe(0);
    expect(tracker.snapshot().tables.pg_main.accounts.rows).toBe(5);
  });
});
