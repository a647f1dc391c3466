import { describe, expect, it } from 'vitest';
import { FetchSizer } from './fetch-sizer.js';
import { FIRST_FETCH_ROWS, type ReadBudget } from './read-budget.js';

const budget = (batchBytes: number, batchRows = 2_000): ReadBudget => ({
  batchBytes,
  batchRows,
  remainingBytes: () => Number.MAX_SAFE_INTEGER,
});

describe('FetchSizer', () => {
  it('grows small rows from FIRST_FETCH_ROWS to batchRows, fourfold at most per fetch', () => {
    const sizer = new FetchSizer(budget(4 << 20));
    const asked: number[] = [];
    for (let i = 0; i < 8; i++) {
      asked.push(sizer.next);
      sizer.record(sizer.next, sizer.next * 100);
    }
    expect(asked).toEqual([FIRST_FETCH_ROWS, 4, 16, 64, 256, 1_024, 2_000, 2_000]);
  });

  it('shrinks at once when rows grow part-way through a table', () => {
    const sizer = new FetchSizer(budget(4 << 20));
    sizer.record(64, 64 * 100);
    sizer.record(256, 256 * 100);
    // Rows of 1 MiB now: the mean so far is still small, the last fetch's is not.
    sizer.record(1_024, 1_024 * (1 << 20));
    expect(sizer.next).toBe(4);
  });

  it('starts from the given first fetch, within batchRows', () => {
    expect(new FetchSizer(budget(1 << 20), 1_000).next).toBe(1_000);
    expect(new FetchSizer(budget(1 << 20, 10), 1_000).next).toBe(10);
  });
});
