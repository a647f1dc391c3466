import { describe, expect, it } from 'vitest';
import type { StreamMarks } from '../engine/request/incremental-request.js';
import { movedTable, type MarksCommit } from './marks-commit.js';

const mark = (value: string, column = 'id') => ({ column, type: 'integer' as const, value });
const range = (from: string | null, to: string | null) => ({
  column: 'id',
  type: 'integer' as const,
  from,
  fromInclusive: false,
  to,
  rows: 1,
});

/** A job that started from `from` and read `orders` (and `constructor`, a legal table name) of pg. */
function commit(from: StreamMarks): MarksCommit {
  return {
    productName: 'reporter',
    stream: 'nightly',
    jobId: 'job-2',
    from,
    outcome: {
      tables: { pg: { orders: range('10', '20'), constructor: range(null, '5') } },
      marks: { pg: { orders: mark('20'), constructor: mark('5') } },
    },
  };
}

describe('movedTable: the compare of the commit of a job’s marks', () => {
  it('passes while the stream holds exactly the marks the job started from, whatever else it holds', () => {
    const from = { pg: { orders: mark('10') } };
    expect(movedTable({ pg: { orders: mark('10') } }, commit(from))).toBeUndefined();
    // Tables of other jobs of the stream are theirs: the merge keeps them, the compare ignores them.
    expect(movedTable({ pg: { orders: mark('10'), customers: mark('99') }, other: { t: mark('1') } }, commit(from))).toBeUndefined();
  });

  it('passes a first commit: no row, and no mark in what the job started from', () => {
    expect(movedTable(undefined, commit({}))).toBeUndefined();
    expect(movedTable({}, commit({}))).toBeUndefined();
  });

  it('names the table whose mark a PUT moved: another value, column or type', () => {
    const from = { pg: { orders: mark('10') } };
    expect(movedTable({ pg: { orders: mark('15') } }, commit(from))).toBe('pg.orders');
    expect(movedTable({ pg: { orders: mark('10', 'order_id') } }, commit(from))).toBe('pg.orders');
    expect(movedTable({ pg: { orders: { ...mark('10'), type: 'decimal' } } }, commit(from))).toBe('pg.orders');
  });

  it('names a table that had no mark and has one now, and one whose mark was removed (a DELETE)', () => {
    expect(movedTable({ pg: { orders: mark('10'), constructor: mark('3') } }, commit({ pg: { orders: mark('10') } }))).toBe(
      'pg.constructor',
    );
    expect(movedTable(undefined, commit({ pg: { orders: mark('10') } }))).toBe('pg.orders');
    expect(movedTable({ pg: {} }, commit({ pg: { orders: mark('10') } }))).toBe('pg.orders');
  });

  it('reads own members only: a table named constructor is not Object.prototype.constructor', () => {
    expect(movedTable({ pg: { orders: mark('10') } }, commit({ pg: { orders: mark('10') } }))).toBeUndefined();
  });
});
