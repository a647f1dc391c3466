import { describe, expect, it } from 'vitest';
import type { SchemaSnapshot, TableInfo } from '../connectors/shared/engine-connector.js';
import { collectRequestedTables, matchRequestedTables } from './mapped-tables.js';

const table = (schema: string, name: string, key: string, columns: string[]): TableInfo => ({
  schema,
  name,
  key,
  columns: columns.map((column) => ({ name: column, dataType: 'text' })),
  primaryKey: [columns[0]],
});

describe('collectRequestedTables', () => {
  it('merges public.x and x into one table, keeping the first field order and adding new fields', () => {
    expect(collectRequestedTables({ 'public.accounts': ['id', 'email'], accounts: ['email', 'balance'] }, undefined, 'public')).toEqual([
      { schema: 'public', name: 'accounts', key: 'accounts', fields: ['id', 'email', 'balance'], filters: {} },
    ]);
  });

  it('lets a wildcard win a merge, sorts by key and attaches filters by key', () => {
    const tables = collectRequestedTables(
      { accounts: ['id'], 'public.accounts': ['*'], 'accounting.invoices': ['id'] },
      { 'public.accounts': { id: { gt: [1] } } },
      'public',
    );
    expect(tables.map((t) => [t.key, t.fields, t.filters])).toEqual([
      ['accounting.invoices', ['id'], {}],
      ['accounts', ['*'], { id: { gt: [1] } }],
    ]);
  });

  it('folds names for engines that fold them (Oracle), filters included', () => {
    const upper = (name: string) => name.toUpperCase();
    expect(collectRequestedTables({ accounts: ['id', '*'] }, { accounts: { status: { eq: ['x'] } } }, 'APP', upper)).toEqual([
      { schema: 'APP', name: 'ACCOUNTS', key: 'ACCOUNTS', fields: ['ID', '*'], filters: { STATUS: { eq: ['x'] } } },
    ]);
  });
});

describe('matchRequestedTables', () => {
  const snapshot: SchemaSnapshot = {
    tables: new Map([
      ['accounts', table('public', 'accounts', 'accounts', ['id', 'email', 'balance'])],
      ['accounting.invoices', table('accounting', 'invoices', 'accounting.invoices', ['id', 'amount'])],
    ]),
  };

  it('builds read requests with the projection in request order, or every column for *', () => {
    const { tables, details } = matchRequestedTables(
      'pg',
      collectRequestedTables({ accounts: ['balance', 'id'], 'accounting.invoices': ['*'] }, undefined, 'public'),
      snapshot,
    );
    expect(details).toEqual([]);
    expect(tables.map((t) => [t.table.key, t.columns.map((c) => c.name)])).toEqual([
      ['accounting.invoices', ['id', 'amount']],
      ['accounts', ['balance', 'id']],
    ]);
  });

  it('reports every unknown table, field and filter field', () => {
    const requested = collectRequestedTables(
      { accounts: ['id', 'emial'], ghosts: ['id'], 'accounting.invoices': ['total'] },
      { accounts: { nickname: { eq: ['x'] } } },
      'public',
    );
    expect(matchRequestedTables('pg', requested, snapshot).details).toEqual([
      { type: 'field_not_found', datasource: 'pg', table: 'accounting.invoices', field: 'total' },
      { type: 'field_not_found', datasource: 'pg', table: 'accounts', field: 'emial' },
      { type: 'invalid_filter', datasource: 'pg', table: 'accounts', field: 'nickname', message: "no column 'nickname' to filter on" },
      { type: 'table_not_found', datasource: 'pg', table: 'ghosts' },
    ]);
  });
});
