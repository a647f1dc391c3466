import { describe, expect, it } from 'vitest';
import type { CursorKind, CursorRange } from '../../incremental/cursor-range.js';
import { rangeRead } from '../../incremental/range-filters.js';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { boundStatement, boundText, cursorKindOf, markBinding, rangeOperands } from './sqlserver-range-read.js';
import { buildSelect } from './sqlserver-sql.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { column, tableOf } from './testing/fake-datasource.js';

const range = (col: ColumnInfo, kind: CursorKind, extra: Partial<CursorRange> = {}): CursorRange => ({ column: col, kind, ...extra });

describe('SQL Server cursor kinds', () => {
  it.each([
    ['tinyint', 'integer'],
    ['smallint', 'integer'],
    ['int', 'integer'],
    ['bigint', 'integer'],
    ['decimal(12,2)', 'decimal'],
    ['numeric(38,0)', 'decimal'],
    ['money', 'decimal'],
    ['smallmoney', 'decimal'],
    ['date', 'date'],
    ['datetime2(7)', 'timestamp'],
    ['datetime2(0)', 'timestamp'],
    ['datetime', 'timestamp'],
    ['smalldatetime', 'timestamp'],
    ['datetimeoffset(7)', 'timestamptz'],
  ])('%s is a %s cursor', (type, kind) => {
    expect(new SqlServerConnector().cursorKind(column('c', type))).toBe(kind);
  });

  it.each([
    'float',
    'real',
    'bit',
    'time(7)',
    'uniqueidentifier',
    'timestamp',
    'varbinary(8)',
    'nvarchar(20)',
    'xml',
    'sql_variant',
    'geography',
  ])('%s cannot be a cursor', (type) => {
    expect(cursorKindOf(column('c', type))).toBeNull();
  });

  it('refuses a column without engine type info, and a kind name that is not a type of its own', () => {
    expect(cursorKindOf({ name: 'c', dataType: 'int' })).toBeNull();
    expect(cursorKindOf({ name: 'c', dataType: 'x', engineType: { kind: 'constructor', typeName: 'x' } })).toBeNull();
  });
});

describe('SQL Server bound statement', () => {
  const ID = column('id', 'bigint');
  const AMOUNT = column('amount', 'decimal(12,2)');
  const DAY = column('day', 'date');
  const AT = column('at', 'datetime2(7)');
  const LEGACY = column('legacy', 'datetime');
  const MINUTE = column('minute', 'smalldatetime');
  const ZONED = column('zoned', 'datetimeoffset(3)');
  const TABLE = tableOf('sales', 'events', [ID, AMOUNT, DAY, AT, LEGACY, MINUTE, ZONED], ['id']);

  it('takes the maximum over the whole table, read as the column is read, with no lower bound on a first run', () => {
    expect(boundStatement(TABLE, range(ID, 'integer'))).toEqual({
      text: 'SELECT [id] FROM (SELECT MAX([src].[id]) AS [id] FROM [sales].[events] AS [src]) AS [bound]',
      params: [],
    });
    expect(boundStatement(TABLE, range(AMOUNT, 'decimal')).text).toBe(
      'SELECT CONVERT(varchar(41), [amount]) AS [amount] FROM (SELECT MAX([src].[amount]) AS [amount] FROM [sales].[events] AS [src]) AS [bound]',
    );
  });

  it('compares the bound with the mark (exclusive) or the starting value (inclusive) as a filter of the column would', () => {
    expect(boundStatement(TABLE, range(ID, 'integer', { after: '41' }))).toEqual({
      text: 'SELECT [id] FROM (SELECT MAX([src].[id]) AS [id] FROM [sales].[events] AS [src]) AS [bound] WHERE [id] > CAST(@p1 AS decimal(38,19))',
      params: [{ name: 'p1', type: 'nvarchar', value: '41' }],
    });
    expect(boundStatement(TABLE, range(AT, 'timestamp', { from: '2024-01-01' }))).toEqual({
      text:
        'SELECT CONVERT(varchar(27), [at], 121) AS [at] FROM (SELECT MAX([src].[at]) AS [at] FROM [sales].[events] AS [src]) AS [bound]' +
        ' WHERE [at] >= CAST(@p1 AS datetime2(7))',
      params: [{ name: 'p1', type: 'nvarchar', value: '2024-01-01' }],
    });
    expect(boundStatement(TABLE, range(ZONED, 'timestamptz', { after: '2024-01-01T10:00:00.123+05:30' })).params).toEqual([
      { name: 'p1', type: 'nvarchar', value: '2024-01-01T10:00:00.123+05:30' },
    ]);
  });

  it('subtracts the lag in the column type: seconds, whole minutes for smalldatetime, whole days for date (rounded up)', () => {
    const source = (col: ColumnInfo, kind: CursorKind, lagSeconds: number) =>
      /FROM \((SELECT .*? AS \[\w+\]) FROM/.exec(boundStatement(TABLE, range(col, kind, { lagSeconds })).text)?.[1];
    expect(source(AT, 'timestamp', 90)).toBe('SELECT DATEADD(second, -90, MAX([src].[at])) AS [at]');
    expect(source(LEGACY, 'timestamp', 90)).toBe('SELECT DATEADD(second, -90, MAX([src].[legacy])) AS [legacy]');
    expect(source(ZONED, 'timestamptz', 3600)).toBe('SELECT DATEADD(second, -3600, MAX([src].[zoned])) AS [zoned]');
    expect(source(MINUTE, 'timestamp', 61)).toBe('SELECT DATEADD(minute, -2, MAX([src].[minute])) AS [minute]');
    expect(source(MINUTE, 'timestamp', 60)).toBe('SELECT DATEADD(minute, -1, MAX([src].[minute])) AS [minute]');
    expect(source(DAY, 'date', 3600)).toBe('SELECT DATEADD(day, -1, MAX([src].[day])) AS [day]');
    expect(source(DAY, 'date', 86_401)).toBe('SELECT DATEADD(day, -2, MAX([src].[day])) AS [day]');
    // With a mark: the lagged bound is what is compared with it.
    expect(boundStatement(TABLE, range(AT, 'timestamp', { lagSeconds: 5, after: '2024-01-01T00:00:00.0000001' })).text).toBe(
      'SELECT CONVERT(varchar(27), [at], 121) AS [at] FROM (SELECT DATEADD(second, -5, MAX([src].[at])) AS [at] FROM [sales].[events] AS [src]) AS [bound]' +
        ' WHERE [at] > CAST(@p1 AS datetime2(7))',
    );
  });

  it('refuses a lag on a cursor that is not a time, or one that is not a positive integer', () => {
    expect(() => boundStatement(TABLE, range(ID, 'integer', { lagSeconds: 5 }))).toThrow(/lagSeconds/);
    expect(() => boundStatement(TABLE, range(AT, 'timestamp', { lagSeconds: 1.5 }))).toThrow(/lagSeconds/);
    expect(() => boundStatement(TABLE, range(AT, 'timestamp', { lagSeconds: 0 }))).toThrow(/lagSeconds/);
  });

  it("binds a datetime mark on a 1/300 s tick at that tick's exact value, other marks as they are", () => {
    const bind = markBinding(LEGACY);
    expect(bind('2024-01-15T10:20:30.003', 'timestamp')).toBe('2024-01-15T10:20:30.0033333');
    expect(bind('2024-01-15T10:20:30.997', 'timestamp')).toBe('2024-01-15T10:20:30.997');
    expect(bind('2024-01-15T10:20:30.000', 'timestamp')).toBe('2024-01-15T10:20:30.000');
    expect(bind('2024-01-15', 'timestamp')).toBe('2024-01-15');
    expect(markBinding(AT)('2024-01-15T10:20:30.0030000', 'timestamp')).toBe('2024-01-15T10:20:30.0030000');
    // The range read and the bound statement bind it alike.
    const read = buildSelect(
      rangeRead(
        { table: TABLE, columns: [ID], range: range(LEGACY, 'timestamp', { after: '2024-01-15T10:20:30.003' }) },
        '2024-01-15T10:20:31.013',
        bind,
      ),
    );
    expect(read.text).toBe(
      'SELECT [id] FROM [sales].[events] AS [src] WHERE [legacy] > CAST(@p1 AS datetime2(7)) AND [legacy] <= CAST(@p2 AS datetime2(7)) ORDER BY [src].[id]',
    );
    expect(read.params.map((p) => p.value)).toEqual(['2024-01-15T10:20:30.0033333', '2024-01-15T10:20:31.0133333']);
    expect(boundStatement(TABLE, range(LEGACY, 'timestamp', { after: '2024-01-15T10:20:30.003' })).params[0].value).toBe(
      '2024-01-15T10:20:30.0033333',
    );
  });

  it('binds an inclusive datetime start at the smaller form, which >= needs, whatever the bound equals', () => {
    const from = range(LEGACY, 'timestamp', { from: '2024-01-15T10:20:30.003' });
    expect(rangeOperands(from).from).toBe('2024-01-15T10:20:30.0030000');
    expect(rangeOperands(rangeOperands(from))).toEqual(rangeOperands(from));
    expect(boundStatement(TABLE, from).params[0].value).toBe('2024-01-15T10:20:30.0030000');
    const read = buildSelect(
      rangeRead({ table: TABLE, columns: [ID], range: rangeOperands(from) }, '2024-01-15T10:20:30.003', markBinding(LEGACY)),
    );
    expect(read.params.map((p) => p.value)).toEqual(['2024-01-15T10:20:30.0030000', '2024-01-15T10:20:30.0033333']);
    // Other columns keep their starting value as given.
    expect(rangeOperands(range(AT, 'timestamp', { from: '2024-01-15T10:20:30.003' })).from).toBe('2024-01-15T10:20:30.003');
  });

  it('renders the bound with the encoder of the column, as mark text', () => {
    expect(boundText(ID, '9223372036854775807')).toBe('9223372036854775807');
    expect(boundText(column('n', 'int'), 42)).toBe('42');
    expect(boundText(AMOUNT, '100.50')).toBe('100.50');
    expect(boundText(DAY, '2024-02-29')).toBe('2024-02-29');
    expect(boundText(AT, '2024-01-15 10:20:30.1234567')).toBe('2024-01-15T10:20:30.1234567');
    expect(boundText(ZONED, '2024-01-15 10:20:30.123 +05:30')).toBe('2024-01-15T10:20:30.123+05:30');
    expect(boundText(AT, null)).toBeNull();
  });
});
