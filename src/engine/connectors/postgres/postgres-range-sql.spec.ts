import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import type { CursorRange } from '../../incremental/cursor-range.js';
import { buildBound, postgresCursorKind } from './postgres-range-sql.js';
import { PgOid } from './postgres-types.js';

const column = (typeOid: number, castType: string, extra: object = {}): ColumnInfo => ({
  name: 'Cur"sor',
  dataType: castType,
  engineType: { typeOid, category: 'N', castType, ...extra },
});
const table: TableInfo = { schema: 'sales', name: 'orders', key: 'sales.orders', columns: [], primaryKey: ['id'] };
const bound = (cursor: ColumnInfo, range: Partial<CursorRange>) =>
  buildBound({ table, columns: [], range: { column: cursor, kind: postgresCursorKind(cursor)!, ...range } } as TableReadRequest);

describe('PostgreSQL cursor kinds', () => {
  it('maps integers, numeric, date and timestamps; refuses floats, text, arrays and unknown types', () => {
    const kinds = [
      [PgOid.int2, 'smallint'],
      [PgOid.int8, 'bigint'],
      [PgOid.numeric, 'numeric'],
      [PgOid.date, 'date'],
      [PgOid.timestamp, 'timestamp'],
      [PgOid.timestamptz, 'timestamptz'],
      [PgOid.float8, 'double precision'],
      [PgOid.text, 'text'],
      [PgOid.money, 'money'],
    ].map(([oid, cast]) => postgresCursorKind(column(oid as number, cast as string)));
    expect(kinds).toEqual(['integer', 'integer', 'decimal', 'date', 'timestamp', 'timestamptz', null, null, null]);
    expect(postgresCursorKind(column(1016, 'bigint[]', { elementOid: PgOid.int8 }))).toBeNull();
    expect(postgresCursorKind({ name: 'x', dataType: 'bigint' })).toBeNull();
  });
});

describe('buildBound', () => {
  const int8 = column(PgOid.int8, 'bigint');
  it('takes the maximum over the whole table, quoted, with no filter', () => {
    expect(bound(int8, {})).toEqual({ text: 'SELECT max("Cur""sor") AS bound FROM "sales"."orders"', values: [] });
  });

  it('keeps it only above the mark, or at or above the initial value, compared in the column’s type', () => {
    expect(bound(int8, { after: '42' })).toEqual({
      text: 'SELECT b.bound FROM (SELECT max("Cur""sor") AS bound FROM "sales"."orders") AS b WHERE b.bound > $1::bigint',
      values: ['42'],
    });
    expect(bound(int8, { from: '7' }).text).toMatch(/WHERE b\.bound >= \$1::bigint$/);
  });

  it('subtracts the lag from a timestamp, and from a date keeps a date', () => {
    const at = column(PgOid.timestamptz, 'timestamptz');
    expect(bound(at, { lagSeconds: 300, after: '2024-01-01T00:00:00Z' })).toEqual({
      text:
        'SELECT b.bound FROM (SELECT (max("Cur""sor") - make_interval(secs => $1::double precision)) AS bound FROM "sales"."orders") AS b' +
        ' WHERE b.bound > $2::timestamptz',
      values: [300, '2024-01-01T00:00:00Z'],
    });
    expect(bound(column(PgOid.date, 'date'), { lagSeconds: 1 }).text).toBe(
      'SELECT (max("Cur""sor") - make_interval(secs => $1::double precision))::date AS bound FROM "sales"."orders"',
    );
  });
});
