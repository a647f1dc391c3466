import { describe, expect, it } from 'vitest';
import { readExpression, textExpression } from './sqlserver-expressions.js';
import { qualifiedName, quoteIdent } from './sqlserver-identifier.js';
import { buildSelect } from './sqlserver-sql.js';
import type { SqlServerValueKind } from './sqlserver-types.js';
import { column, tableOf } from './testing/fake-datasource.js';
import { expectMapsEach } from '../testing/mapping-checks.js';

describe('SQL Server identifier quoting', () => {
  it('always bracket-quotes and doubles a closing bracket', () => {
    expectMapsEach(quoteIdent, {
      users: '[users]',
      CreatedAt: '[CreatedAt]',
      select: '[select]',
      'a]b': '[a]]b]',
      '[x]': '[[x]]]',
      'a.b c': '[a.b c]',
      ']; DROP TABLE x; --': '[]]; DROP TABLE x; --]',
    });
  });

  it('qualifies a table with its schema', () => {
    expect(qualifiedName({ schema: 'dbo', name: 'users' })).toBe('[dbo].[users]');
    expect(qualifiedName({ schema: 'My Schema', name: 'x]y' })).toBe('[My Schema].[x]]y]');
    expect(qualifiedName({ schema: null, name: 't' })).toBe('[t]');
  });
});

describe('SQL Server column reads (value fidelity on the server)', () => {
  it.each<[SqlServerValueKind, string]>([
    ['decimal', 'CONVERT(varchar(41), [c])'],
    ['money', 'CONVERT(varchar(30), [c], 2)'],
    ['datetime2', 'CONVERT(varchar(27), [c], 121)'],
    ['datetime', 'CONVERT(varchar(23), [c], 121)'],
    ['smalldatetime', 'CONVERT(varchar(19), [c], 120)'],
    ['datetimeoffset', 'CONVERT(varchar(34), [c], 121)'],
    ['date', 'CONVERT(varchar(10), [c], 23)'],
    ['time', 'CAST([c] AS varchar(16))'],
    ['clr', '[c].ToString()'],
    ['json', 'CONVERT(nvarchar(max), [c])'],
    ['other', 'CONVERT(nvarchar(max), [c])'],
  ])('%s is converted to exact text: %s', (kind, sql) => {
    expect(readExpression('[c]', kind)).toBe(sql);
  });

  it.each<SqlServerValueKind>(['boolean', 'integer', 'bigint', 'float', 'real', 'uuid', 'binary', 'text', 'long-text', 'xml'])(
    '%s is read as the driver delivers it',
    (kind) => {
      expect(readExpression('[c]', kind)).toBe('[c]');
    },
  );

  it('reads sql_variant by its base type: dates ISO, money with 4 decimals, floats lossless, guids lower-case', () => {
    const sql = readExpression('[v]', 'variant');
    expect(sql).toMatch(/^CASE CAST\(SQL_VARIANT_PROPERTY\(\[v\], 'BaseType'\) AS nvarchar\(128\)\)/);
    expect(sql).toContain("WHEN N'datetime2' THEN CONVERT(nvarchar(40), CAST([v] AS datetime2(7)), 121)");
    expect(sql).toContain("WHEN N'datetimeoffset' THEN CONVERT(nvarchar(40), CAST([v] AS datetimeoffset(7)), 121)");
    expect(sql).toContain("WHEN N'datetime' THEN CONVERT(nvarchar(40), CAST([v] AS datetime), 121)");
    expect(sql).toContain("WHEN N'date' THEN CONVERT(nvarchar(40), CAST([v] AS date), 23)");
    expect(sql).toContain("WHEN N'money' THEN CONVERT(nvarchar(40), CAST([v] AS money), 2)");
    expect(sql).toContain("WHEN N'float' THEN CONVERT(nvarchar(40), CAST([v] AS float), 3)");
    expect(sql).toContain("WHEN N'uniqueidentifier' THEN LOWER(CONVERT(nvarchar(36), [v]))");
    expect(sql).toContain("WHEN N'varbinary' THEN CONVERT(nvarchar(max), CAST([v] AS varbinary(8000)), 1)");
    expect(sql).toMatch(/ ELSE CONVERT\(nvarchar\(max\), \[v\]\) END$/);
  });

  it.each<[SqlServerValueKind, string]>([
    ['text', '[c]'],
    ['long-text', 'CAST([c] AS nvarchar(max))'],
    ['xml', 'CAST([c] AS nvarchar(max))'],
    ['boolean', "CASE [c] WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"],
    ['integer', 'CONVERT(varchar(20), [c])'],
    ['bigint', 'CONVERT(varchar(20), [c])'],
    ['float', 'CONVERT(varchar(30), [c], 3)'],
    ['uuid', 'LOWER(CONVERT(char(36), [c]))'],
    ['binary', 'CONVERT(varchar(max), [c], 1)'],
    ['decimal', 'CONVERT(varchar(41), [c])'],
    ['date', 'CONVERT(varchar(10), [c], 23)'],
    ['clr', '[c].ToString()'],
  ])('%s has a text form for like: %s', (kind, sql) => {
    expect(textExpression('[c]', kind)).toBe(sql);
  });
});

describe('SQL Server row SELECT', () => {
  const ORDER = tableOf(
    'Sales',
    'Order Lines',
    [
      column('line', 'int'),
      column('select', 'nvarchar(max)'),
      column('Order', 'bigint'),
      column('amount', 'decimal(12,2)'),
      column('at', 'datetime2(3)'),
    ],
    ['Order', 'line'],
  );

  it('projects the requested columns in request order, converting those that need it under their own name', () => {
    const pick = (name: string) => ORDER.columns.find((c) => c.name === name)!;
    expect(buildSelect({ table: ORDER, columns: [pick('at'), pick('select'), pick('amount')] })).toEqual({
      text:
        'SELECT CONVERT(varchar(27), [at], 121) AS [at], [select], CONVERT(varchar(41), [amount]) AS [amount] ' +
        'FROM [Sales].[Order Lines] AS [src] ORDER BY [src].[Order], [src].[line]',
      params: [],
    });
  });

  it('orders by the key columns of the table, qualified so a converted alias never decides the order', () => {
    const keyed = tableOf('dbo', 'prices', [column('amount', 'decimal(10,2)')], ['amount']);
    expect(buildSelect({ table: keyed, columns: keyed.columns }).text).toBe(
      'SELECT CONVERT(varchar(41), [amount]) AS [amount] FROM [dbo].[prices] AS [src] ORDER BY [src].[amount]',
    );
  });

  it('has no ORDER BY without a primary key, and a constant list for an empty projection', () => {
    const heap = tableOf('dbo', 'heap', [column('v', 'int')]);
    expect(buildSelect({ table: heap, columns: [] }).text).toBe('SELECT 1 FROM [dbo].[heap] AS [src]');
  });

  it('adds the filters as a WHERE clause with @pN parameters', () => {
    const statement = buildSelect({
      table: ORDER,
      columns: [ORDER.columns[0]],
      filters: { select: { eq: ['x'] }, Order: { gt: [10] } },
    });
    expect(statement.text).toBe(
      'SELECT [line] FROM [Sales].[Order Lines] AS [src] WHERE [select] = @p1 AND [Order] > CAST(@p2 AS decimal(38,19)) ORDER BY [src].[Order], [src].[line]',
    );
    expect(statement.params).toEqual([
      { name: 'p1', type: 'nvarchar', value: 'x' },
      { name: 'p2', type: 'nvarchar', value: '10' },
    ]);
  });

  it('leaves the WHERE out when no filter applies', () => {
    expect(buildSelect({ table: ORDER, columns: [ORDER.columns[0]], filters: { line: { eq: [] } } }).text).not.toContain('WHERE');
  });
});
