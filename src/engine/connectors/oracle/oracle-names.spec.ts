import { describe, expect, it } from 'vitest';
import { collectRequestedTables, matchRequestedTables } from '../../planner/mapped-tables.js';
import type { SchemaSnapshot, TableInfo } from '../shared/engine-connector.js';
import { normalizeOracleField, normalizeOracleRequest, normalizeOracleTableName } from './oracle-names.js';

const table = (schema: string, name: string, key: string, columns: string[]): TableInfo => ({
  schema,
  name,
  key,
  columns: columns.map((c) => ({ name: c, dataType: 'VARCHAR2' })),
  primaryKey: [],
});

const SNAPSHOT: SchemaSnapshot = {
  tables: new Map([
    ['ACCOUNTS', table('FETCHER', 'ACCOUNTS', 'ACCOUNTS', ['ID', 'BALANCE'])],
    ['Orders', table('FETCHER', 'Orders', 'Orders', ['id', 'TOTAL'])],
    ['HR.EMPLOYEES', table('HR', 'EMPLOYEES', 'HR.EMPLOYEES', ['ID'])],
  ]),
};

describe('Oracle request names (for the planner)', () => {
  it('upper-cases tables, owners and fields before discovery, as Oracle folds unquoted names', () => {
    expect(normalizeOracleTableName('accounts')).toBe('ACCOUNTS');
    expect(normalizeOracleTableName('hr.employees')).toBe('HR.EMPLOYEES');
    expect(normalizeOracleTableName('Fetcher.Accounts')).toBe('FETCHER.ACCOUNTS');
    expect(normalizeOracleField('balance', 'ACCOUNTS')).toBe('BALANCE');
    expect(normalizeOracleField('*', 'ACCOUNTS')).toBe('*');
  });

  it('keeps a name written exactly as a quoted mixed-case object in the snapshot', () => {
    expect(normalizeOracleTableName('Orders', SNAPSHOT, 'FETCHER')).toBe('Orders');
    expect(normalizeOracleTableName('orders', SNAPSHOT, 'FETCHER')).toBe('ORDERS');
    expect(normalizeOracleTableName('fetcher.Orders', SNAPSHOT, 'FETCHER')).toBe('FETCHER.Orders');
    expect(normalizeOracleField('id', 'Orders', SNAPSHOT, 'FETCHER')).toBe('id');
    expect(normalizeOracleField('total', 'Orders', SNAPSHOT, 'FETCHER')).toBe('TOTAL');
    expect(normalizeOracleField('id', 'HR.EMPLOYEES', SNAPSHOT, 'FETCHER')).toBe('ID');
  });

  it('merges tables and filters that become the same name; a wildcard wins; the first filter per field wins', () => {
    const { mapped, filters } = normalizeOracleRequest(
      { accounts: ['id', 'balance'], ACCOUNTS: ['BALANCE', 'id'], 'hr.employees': ['id'], 'HR.EMPLOYEES': ['*'] },
      { accounts: { balance: { gt: [1] } }, ACCOUNTS: { BALANCE: { lt: [9] }, id: { eq: [1] } } },
    );
    expect(mapped).toEqual({ ACCOUNTS: ['ID', 'BALANCE'], 'HR.EMPLOYEES': ['*'] });
    expect(filters).toEqual({ ACCOUNTS: { BALANCE: { gt: [1] }, ID: { eq: [1] } } });
  });

  it('lets the shared planner helpers match an Oracle snapshot, keys upper-case and the login owner dropped', () => {
    const { mapped, filters } = normalizeOracleRequest(
      { 'fetcher.accounts': ['balance'], 'hr.employees': ['id', 'nope'], missing: ['x'] },
      { 'fetcher.accounts': { id: { eq: [1] } } },
      SNAPSHOT,
      'FETCHER',
    );
    const requested = collectRequestedTables(mapped, filters, 'FETCHER');
    expect(requested.map((t) => t.key)).toEqual(['ACCOUNTS', 'HR.EMPLOYEES', 'MISSING']);
    const { tables, details } = matchRequestedTables('ora', requested, SNAPSHOT);
    expect(tables.map((t) => [t.table.key, t.columns.map((c) => c.name), t.filters])).toEqual([
      ['ACCOUNTS', ['BALANCE'], { ID: { eq: [1] } }],
      ['HR.EMPLOYEES', ['ID'], undefined],
    ]);
    expect(details).toEqual([
      { type: 'field_not_found', datasource: 'ora', table: 'HR.EMPLOYEES', field: 'NOPE' },
      { type: 'table_not_found', datasource: 'ora', table: 'MISSING' },
    ]);
  });
});
