import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '../shared/engine-connector.js';
import { qualifiedName, quoteIdent } from './postgres-identifier.js';
import { buildSelect } from './postgres-sql.js';
import type { PostgresColumnType } from './postgres-types.js';
import { expectMapsEach } from '../testing/mapping-checks.js';

const col = (name: string, type: Partial<PostgresColumnType> & { typeOid: number; castType: string }): ColumnInfo => ({
  name,
  dataType: type.castType,
  engineType: { category: 'X', ...type },
});

const ID = col('id', { typeOid: 23, category: 'N', castType: 'integer' });
const SELECT = col('select', { typeOid: 25, category: 'S', castType: 'text' });
const MIXED = col('CreatedAt', { typeOid: 1184, category: 'D', castType: 'timestamp with time zone' });
const CASH = col('cash', { typeOid: 790, category: 'N', castType: 'money' });
const CASHES = col('cashes', { typeOid: 791, elementOid: 790, category: 'A', castType: 'money[]' });

const table = (overrides: Partial<TableInfo> = {}): TableInfo => ({
  schema: 'Sales',
  name: 'Order "Lines"',
  key: 'Sales.Order "Lines"',
  columns: [ID, SELECT, MIXED, CASH, CASHES],
  primaryKey: [],
  ...overrides,
});

describe('PostgreSQL identifier quoting', () => {
  it('always double-quotes and doubles embedded quotes', () => {
    expectMapsEach(quoteIdent, {
      users: '"users"',
      CreatedAt: '"CreatedAt"',
      select: '"select"',
      'a"b': '"a""b"',
      '"; DROP TABLE x; --': '"""; DROP TABLE x; --"',
      'a.b c': '"a.b c"',
    });
  });

  it('qualifies a table with its schema', () => {
    expect(qualifiedName({ schema: 'public', name: 'users' })).toBe('"public"."users"');
    expect(qualifiedName({ schema: 'My Schema', name: 'x"y' })).toBe('"My Schema"."x""y"');
  });
});

describe('SELECT building', () => {
  it('projects quoted columns in request order without ORDER BY when there is no primary key', () => {
    const sql = buildSelect({ table: table(), columns: [MIXED, SELECT, ID] });
    expect(sql).toEqual({ text: 'SELECT "CreatedAt", "select", "id" FROM "Sales"."Order ""Lines"""', values: [] });
  });

  it('orders by the primary key columns in key order', () => {
    const sql = buildSelect({ table: table({ primaryKey: ['select', 'id'] }), columns: [ID] });
    expect(sql.text).toBe('SELECT "id" FROM "Sales"."Order ""Lines""" ORDER BY "select", "id"');
  });

  it('reads money as numeric under its own name', () => {
    const sql = buildSelect({ table: table(), columns: [CASH, CASHES] });
    expect(sql.text).toBe('SELECT "cash"::numeric AS "cash", "cashes"::numeric[] AS "cashes" FROM "Sales"."Order ""Lines"""');
  });

  it('adds the WHERE clause with bound values before ORDER BY', () => {
    const sql = buildSelect({
      table: table({ primaryKey: ['id'] }),
      columns: [ID],
      filters: { CreatedAt: { gte: ['2024-01-01'] }, select: { eq: ["x' OR 1=1"] } },
    });
    expect(sql.text).toBe(
      'SELECT "id" FROM "Sales"."Order ""Lines""" WHERE "CreatedAt" >= $1::timestamp with time zone AND "select" = $2::text ORDER BY "id"',
    );
    expect(sql.values).toEqual(['2024-01-01', "x' OR 1=1"]);
  });

  it('omits WHERE when the filters are empty', () => {
    expect(buildSelect({ table: table(), columns: [ID], filters: { id: {} } }).text).toBe('SELECT "id" FROM "Sales"."Order ""Lines"""');
  });

  it('falls back to plain projection for a column without engine type', () => {
    const bare: ColumnInfo = { name: 'x', dataType: 'money' };
    expect(buildSelect({ table: table({ columns: [bare] }), columns: [bare] }).text).toBe('SELECT "x" FROM "Sales"."Order ""Lines"""');
  });
});
