import { describe, expect, it } from 'vitest';
import { type DiscoveryRow, tableKey, toSnapshot } from './postgres-discovery.js';

// Rows as DISCOVERY_SQL returns them: schema, table, column, data type, base OID, category,
// element OID, element delimiter, cast type, PK position (0-based, null when not in the PK).
const ROWS: DiscoveryRow[] = [
  ['Sales', 'OrderLines', 'line', 'integer', '23', 'N', null, null, 'integer', '1'],
  ['Sales', 'OrderLines', 'select', 'text', '25', 'S', null, null, 'text', null],
  ['Sales', 'OrderLines', 'Order', 'integer', '23', 'N', null, null, 'integer', '0'],
  ['public', 'accounts', 'id', 'bigint', '20', 'N', null, null, 'bigint', '0'],
  ['public', 'accounts', 'tags', 'text[]', '1009', 'A', '25', ',', 'text[]', null],
  ['public', 'accounts', 'balance', 'positive_amount', '1700', 'N', null, null, 'numeric', null],
];

describe('PostgreSQL discovery snapshot', () => {
  const snapshot = toSnapshot(ROWS, 'public');

  it('keys default-schema tables bare and others as schema.table', () => {
    expect([...snapshot.tables.keys()]).toEqual(['Sales.OrderLines', 'accounts']);
    expect(tableKey('public', 'users', 'public')).toBe('users');
    expect(tableKey('accounting', 'invoices', 'public')).toBe('accounting.invoices');
    expect(tableKey('public', 'users', 'accounting')).toBe('public.users');
  });

  it('keeps columns in table order and the primary key in key order', () => {
    const lines = snapshot.tables.get('Sales.OrderLines')!;
    expect(lines).toMatchObject({ schema: 'Sales', name: 'OrderLines', key: 'Sales.OrderLines' });
    expect(lines.columns.map((c) => c.name)).toEqual(['line', 'select', 'Order']);
    expect(lines.primaryKey).toEqual(['Order', 'line']);
  });

  it('carries the resolved types the value mapping needs, as plain JSON data', () => {
    const accounts = snapshot.tables.get('accounts')!;
    expect(accounts.columns).toEqual([
      { name: 'id', dataType: 'bigint', engineType: { typeOid: 20, category: 'N', castType: 'bigint' } },
      {
        name: 'tags',
        dataType: 'text[]',
        engineType: { typeOid: 1009, elementOid: 25, elementDelimiter: ',', category: 'A', castType: 'text[]' },
      },
      { name: 'balance', dataType: 'positive_amount', engineType: { typeOid: 1700, category: 'N', castType: 'numeric' } },
    ]);
    expect(JSON.parse(JSON.stringify(accounts.columns))).toEqual(accounts.columns);
  });
});
