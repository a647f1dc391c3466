import { describe, expect, it } from 'vitest';
import { ExtractProgress, renderProgress, type FrameWriter } from './extract-progress.js';

const MiB = 1024 * 1024;

describe('the progress display of fetcher extract', () => {
  it('says it is connecting until the plan is known', () => {
    expect(renderProgress({ tables: [], rows: 0, bytes: 0, planned: false }, 1_500)).toBe(
      'connecting and checking the request against the schemas… 1.5 s',
    );
  });

  it('shows rows, MiB, rates and each table with its status and rows', () => {
    const text = renderProgress(
      {
        planned: true,
        rows: 1_500_000,
        bytes: 150 * MiB,
        tables: [
          { datasource: 'pg', table: 'accounts', status: 'done', rows: 1_000_000 },
          { datasource: 'pg', table: 'accounting.invoices', status: 'reading', rows: 500_000 },
          { datasource: 'maria', table: 'leads', status: 'pending', rows: 0 },
        ],
      },
      10_000,
    );
    expect(text.split('\n')).toEqual([
      '1,500,000 rows · 150.0 MiB · 150,000 rows/s · 15.0 MiB/s · 1/3 tables · 10.0 s',
      '  pg.accounts             done       1,000,000',
      '  pg.accounting.invoices  reading      500,000',
      '  maria.leads             pending',
    ]);
  });

  it('lists at most as many tables as the terminal has room for', () => {
    const tables = Array.from({ length: 5 }, (_, i) => ({
      datasource: 'pg',
      table: `t${i}`,
      engine: 'POSTGRESQL',
      status: 'pending' as const,
      rows: 0,
    }));
    const lines = renderProgress({ planned: true, rows: 0, bytes: 0, tables }, 1_000, 2).split('\n');
    expect(lines.slice(1)).toEqual(['  pg.t0  pending', '  pg.t1  pending', '  … and 3 more']);
  });

  it('follows the engine’s events and leaves its last frame on screen', () => {
    const frames: string[] = [];
    let done = false;
    const frame = Object.assign((text: string) => void frames.push(text), { done: () => void (done = true) }) as FrameWriter;
    let now = 0;
    const progress = new ExtractProgress(frame, 10, () => now);
    progress.record({ type: 'planned', tables: [{ datasource: 'pg', table: 'accounts', engine: 'POSTGRESQL' }] });
    progress.record({ type: 'table', datasource: 'pg', table: 'accounts', status: 'reading', rows: 0 });
    progress.record({ type: 'rows', datasource: 'pg', table: 'accounts', engine: 'POSTGRESQL', rows: 2_000, totalRows: 2_000 });
    progress.record({ type: 'bytes', bytes: MiB, totalBytes: MiB });
    progress.record({ type: 'table', datasource: 'pg', table: 'accounts', status: 'done', rows: 2_000 });
    now = 2_000;
    progress.stop();
    expect(done).toBe(true);
    expect(frames.at(-1)).toBe('2,000 rows · 1.0 MiB · 1,000 rows/s · 0.5 MiB/s · 1/1 tables · 2.0 s\n  pg.accounts  done           2,000');
  });
});
