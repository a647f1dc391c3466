import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo, TableReadRequest } from '../connectors/shared/engine-connector.js';
import { planCursors } from './cursor-plan.js';
import type { CursorKind } from './cursor-range.js';

const columns: ColumnInfo[] = [
  { name: 'id', dataType: 'bigint' },
  { name: 'name', dataType: 'text' },
  { name: 'at', dataType: 'timestamp with time zone' },
];
const orders: TableInfo = { schema: 'public', name: 'orders', key: 'orders', columns, primaryKey: ['id'] };
const full: TableInfo = { ...orders, name: 'full', key: 'full' };
const kinds: Record<string, CursorKind | null> = { bigint: 'integer', text: null, 'timestamp with time zone': 'timestamptz' };
const tables: TableReadRequest[] = [
  { table: full, columns },
  { table: orders, columns: [columns[1]] },
];

const plan = (cursor: string, extra: object = {}, marks?: object) =>
  planCursors(
    { stream: 's', cursors: { pg: { 'public.orders': cursor } }, ...extra },
    {
      configName: 'pg',
      tables,
      keyOf: (requested) => requested.replace(/^public\./, ''),
      canonical: (name) => name,
      cursorKind: (column) => kinds[column.dataType] ?? null,
      marks: marks as never,
    },
  );

describe('planCursors', () => {
  it('gives the cursor table its range (the cursor need not be projected) and leaves the others whole', () => {
    const { tables: planned, problems } = plan('id');
    expect(problems).toEqual([]);
    expect(planned[0]).toBe(tables[0]);
    expect(planned[1].range).toEqual({ column: columns[0], kind: 'integer' });
  });

  it('starts above the committed mark, or at the inclusive initial value on a first run', () => {
    expect(plan('id', { initial: { pg: { 'public.orders': 100 } } }).tables[1].range).toMatchObject({ from: '100' });
    const marked = plan('id', { initial: { pg: { 'public.orders': 100 } } }, { orders: { column: 'id', type: 'integer', value: '250' } });
    expect(marked.tables[1].range).toEqual({ column: columns[0], kind: 'integer', after: '250' });
  });

  it('names the cursor member for a missing column, a refused type, or a mark on another column', () => {
    const at = 'dataRequest.incremental.cursors.pg.public.orders';
    expect(plan('nope').problems).toEqual([{ path: at, detail: expect.objectContaining({ type: 'cursor_not_found', field: 'nope' }) }]);
    expect(plan('name').problems).toEqual([
      {
        path: at,
        detail: expect.objectContaining({
          type: 'cursor_type_refused',
          message: expect.stringMatching(/'name' \(text\) cannot be a cursor/),
        }),
      },
    ]);
    const moved = plan('at', {}, { orders: { column: 'id', type: 'integer', value: '1' } });
    expect(moved.problems[0]).toMatchObject({ path: at, detail: { type: 'cursor_mismatch' } });
  });

  it('refuses lagSeconds on a cursor that is not a time, naming lagSeconds', () => {
    expect(plan('id', { lagSeconds: 60 }).problems).toEqual([
      { path: 'dataRequest.incremental.lagSeconds', detail: expect.objectContaining({ type: 'lag_not_allowed' }) },
    ]);
    expect(plan('at', { lagSeconds: 60 }).tables[1].range).toMatchObject({ kind: 'timestamptz', lagSeconds: 60 });
  });
});

describe('starting values and marks of the cursor’s kind', () => {
  it('refuses an initial value the database would cast to something else, naming the initial member', () => {
    const { problems } = plan('id', { initial: { pg: { 'public.orders': 'abc' } } });
    expect(problems).toEqual([
      {
        path: 'dataRequest.incremental.initial.pg.public.orders',
        detail: expect.objectContaining({ type: 'invalid_initial', message: expect.stringMatching(/'abc' is not an integer/) }),
      },
    ]);
    expect(plan('id', { initial: { pg: { 'public.orders': 1e21 } } }).problems).toHaveLength(1);
    expect(plan('at', { initial: { pg: { 'public.orders': '2026-01-01T00:00:00' } } }).problems[0].detail.message).toMatch(
      /with Z or an offset/,
    );
    expect(plan('at', { initial: { pg: { 'public.orders': '2026-01-01T00:00:00.123456+05:30' } } }).problems).toEqual([]);
  });
});
