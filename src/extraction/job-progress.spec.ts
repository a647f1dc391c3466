import { describe, expect, it } from 'vitest';
import type { ExtractionPlan } from '../engine/executor/extraction-plan.js';
import { JobProgressTracker } from './job-progress.js';

const plan = {
  datasources: [
    { configName: 'pg_main', tables: [{ table: { key: 'accounts' } }, { table: { key: 'accounting.invoices' } }] },
    { configName: 'mysql_crm', tables: [{ table: { key: 'leads' } }] },
  ],
} as unknown as ExtractionPlan;

describe('JobProgressTracker', () => {
  const startedAt = new Date('2026-12-01T10:00:00Z');

  it('starts every planned table as pending with no rows', () => {
    const progress = new JobProgressTracker(plan, startedAt, () => new Date('2026-12-01T10:00:01Z')).snapshot();
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
    const tracker = new JobProgressTracker(plan, startedAt);
    tracker.tableStarted('pg_main', 'accounts');
    tracker.rowsRead('pg_main', 'accounts', 2000);
    tracker.rowsRead('pg_main', 'accounts', 40);
    tracker.tableDone('pg_main', 'accounts');
    tracker.tableStarted('mysql_crm', 'leads');
    tracker.rowsRead('mysql_crm', 'leads', 7);
    tracker.bytesWritten(1000);
    tracker.bytesWritten(24);
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
    const tracker = new JobProgressTracker(plan, startedAt);
    const before = tracker.snapshot();
    tracker.rowsRead('pg_main', 'accounts', 5);
    expect(before.tables.pg_main.accounts.rows).toBe(0);
    expect(tracker.snapshot().tables.pg_main.accounts.rows).toBe(5);
  });
});
