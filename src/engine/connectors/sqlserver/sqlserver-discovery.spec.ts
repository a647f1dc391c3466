import { describe, expect, it } from 'vitest';
import { discoveryStatement, SYSTEM_SCHEMAS, tableKey, toSnapshot, type DiscoveryRow } from './sqlserver-discovery.js';

/** schema, table, column, column_id, type, base type, is_assembly_type, max_length, precision, scale, key_ordinal */
const ROWS: DiscoveryRow[] = [
  ['Sales', 'Order Lines', 'line', 1, 'int', 'int', false, 4, 10, 0, 2],
  ['Sales', 'Order Lines', 'select', 2, 'nvarchar', 'nvarchar', false, -1, 0, 0, null],
  ['Sales', 'Order Lines', 'Order', 3, 'int', 'int', false, 4, 10, 0, 1],
  ['Sales', 'Order Lines', 'where', 4, 'geography', 'geography', true, -1, 0, 0, null],
  ['dbo', 'accounts', 'id', 1, 'bigint', 'bigint', false, 8, 19, 0, 1],
  ['dbo', 'accounts', 'phone', 2, 'Phone', 'varchar', false, 20, 0, 0, null],
  ['dbo', 'accounts', 'balance', 3, 'decimal', 'decimal', false, 9, 12, 2, null],
  ['dbo', 'db_users', 'id', 1, 'uniqueidentifier', 'uniqueidentifier', false, 16, 0, 0, null],
  ['dbo', 'order_view', 'Order', 1, 'int', 'int', false, 4, 10, 0, null],
];

describe('SQL Server schema discovery', () => {
  it('reads tables and views of every readable, non-system schema in one statement', () => {
    const { text, params } = discoveryStatement(null);
    expect(params).toEqual([]);
    expect(text).toContain("WHERE o.type IN ('U', 'V')");
    expect(text).toContain('AND o.is_ms_shipped = 0');
    expect(text).toContain("HAS_PERMS_BY_NAME(QUOTENAME(s.name) + N'.' + QUOTENAME(o.name), N'OBJECT', N'SELECT') = 1");
    expect(text).not.toContain('s.name IN (@');
    expect(text).toContain('ORDER BY s.name, o.name, o.object_id, c.column_id');
    // primary-key position from the PK index, included columns left out
    expect(text).toContain('pk.is_primary_key = 1');
    expect(text).toContain('ic.key_ordinal > 0');
  });

  it('excludes sys, INFORMATION_SCHEMA and the fixed role schemas, but never tables by their name', () => {
    const { text } = discoveryStatement(null);
    for (const schema of SYSTEM_SCHEMAS) expect(text).toContain(`N'${schema}'`);
    expect(SYSTEM_SCHEMAS).toEqual(expect.arrayContaining(['sys', 'INFORMATION_SCHEMA', 'db_owner', 'db_datareader', 'db_denydatawriter']));
    expect(text).not.toMatch(/o\.name\s+(NOT )?LIKE/i);
  });

  it('binds each named schema as a typed parameter, never in the SQL text', () => {
    const { text, params } = discoveryStatement(['Sales', "x'); DROP TABLE t; --"]);
    expect(text).toContain('AND s.name IN (@p1, @p2)');
    expect(text).not.toContain('DROP');
    expect(params).toEqual([
      { name: 'p1', type: 'nvarchar', value: 'Sales' },
      { name: 'p2', type: 'nvarchar', value: "x'); DROP TABLE t; --" },
    ]);
  });

  it('resolves alias types to their system type and keeps CLR types by name', () => {
    const { text } = discoveryStatement(null);
    expect(text).toContain('CASE WHEN t.is_assembly_type = 1 THEN t.name ELSE TYPE_NAME(c.system_type_id) END');
  });

  it('keys tables of the default schema bare and others as schema.table', () => {
    expect(tableKey('dbo', 'accounts', 'dbo')).toBe('accounts');
    expect(tableKey('Sales', 'Order Lines', 'dbo')).toBe('Sales.Order Lines');
    expect(tableKey('dbo', 'accounts', 'Sales')).toBe('dbo.accounts');
  });

  it('groups rows into tables with columns in order, types for people and for the mapping, and the key in key order', () => {
    const snapshot = toSnapshot(ROWS, 'dbo');
    expect([...snapshot.tables.keys()]).toEqual(['Sales.Order Lines', 'accounts', 'db_users', 'order_view']);

    const lines = snapshot.tables.get('Sales.Order Lines')!;
    expect(lines).toMatchObject({ schema: 'Sales', name: 'Order Lines', key: 'Sales.Order Lines', primaryKey: ['Order', 'line'] });
    expect(lines.columns.map((c) => [c.name, c.dataType])).toEqual([
      ['line', 'int'],
      ['select', 'nvarchar(max)'],
      ['Order', 'int'],
      ['where', 'geography'],
    ]);
    expect(lines.columns[3].engineType).toEqual({ typeName: 'geography', kind: 'clr', maxLength: -1, precision: 0, scale: 0 });

    const accounts = snapshot.tables.get('accounts')!;
    expect(accounts.primaryKey).toEqual(['id']);
    expect(accounts.columns.map((c) => c.dataType)).toEqual(['bigint', 'Phone', 'decimal(12,2)']);
    expect(accounts.columns[1].engineType).toMatchObject({ typeName: 'varchar', kind: 'text' });
    expect(accounts.columns[2].engineType).toEqual({ typeName: 'decimal', kind: 'decimal', maxLength: 9, precision: 12, scale: 2 });

    expect(snapshot.tables.get('db_users')!.primaryKey).toEqual([]);
    expect(snapshot.tables.get('order_view')!.primaryKey).toEqual([]);
  });

  it('uses the connection schema as the default one', () => {
    const snapshot = toSnapshot(ROWS, 'Sales');
    expect([...snapshot.tables.keys()]).toEqual(['Order Lines', 'dbo.accounts', 'dbo.db_users', 'dbo.order_view']);
  });

  it('keeps same-named tables that differ only in case apart', () => {
    const snapshot = toSnapshot(
      [
        ['dbo', 'Foo', 'a', 1, 'int', 'int', false, 4, 10, 0, null],
        ['dbo', 'foo', 'b', 1, 'int', 'int', false, 4, 10, 0, null],
      ],
      'dbo',
    );
    expect(snapshot.tables.get('Foo')!.columns.map((c) => c.name)).toEqual(['a']);
    expect(snapshot.tables.get('foo')!.columns.map((c) => c.name)).toEqual(['b']);
  });
});
