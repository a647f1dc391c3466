import { describe, expect, it } from 'vitest';
import { describeColumnType, formatDataType, kindOfColumn, sqlServerColumnType, type ColumnFacts } from './sqlserver-types.js';

const facts = (typeName: string, overrides: Partial<ColumnFacts> = {}): ColumnFacts => ({
  typeName,
  baseTypeName: typeName,
  isAssemblyType: false,
  maxLength: 0,
  precision: 0,
  scale: 0,
  ...overrides,
});

describe('SQL Server column types', () => {
  it.each<[string, string]>([
    ['bit', 'boolean'],
    ['tinyint', 'integer'],
    ['smallint', 'integer'],
    ['int', 'integer'],
    ['bigint', 'bigint'],
    ['decimal', 'decimal'],
    ['numeric', 'decimal'],
    ['money', 'money'],
    ['smallmoney', 'money'],
    ['float', 'float'],
    ['real', 'real'],
    ['date', 'date'],
    ['datetime2', 'datetime2'],
    ['datetime', 'datetime'],
    ['smalldatetime', 'smalldatetime'],
    ['datetimeoffset', 'datetimeoffset'],
    ['time', 'time'],
    ['uniqueidentifier', 'uuid'],
    ['binary', 'binary'],
    ['varbinary', 'binary'],
    ['image', 'binary'],
    ['timestamp', 'binary'],
    ['char', 'text'],
    ['varchar', 'text'],
    ['nchar', 'text'],
    ['nvarchar', 'text'],
    ['text', 'long-text'],
    ['ntext', 'long-text'],
    ['xml', 'xml'],
    ['json', 'json'],
    ['sql_variant', 'variant'],
    ['vector', 'other'],
  ])('%s is read as %s', (type, kind) => {
    expect(describeColumnType(facts(type)).kind).toBe(kind);
  });

  it('reads alias types as their system type, and CLR types as their text', () => {
    expect(describeColumnType(facts('Phone', { baseTypeName: 'varchar', maxLength: 20 }))).toEqual({
      typeName: 'varchar',
      kind: 'text',
      maxLength: 20,
      precision: 0,
      scale: 0,
    });
    expect(describeColumnType(facts('Money4', { baseTypeName: 'decimal', precision: 19, scale: 4 })).kind).toBe('decimal');
    for (const clr of ['geography', 'geometry', 'hierarchyid', 'MyPoint']) {
      expect(describeColumnType(facts(clr, { isAssemblyType: true })).kind).toBe('clr');
    }
  });

  it.each<[ColumnFacts, string]>([
    [facts('int', { precision: 10 }), 'int'],
    [facts('decimal', { precision: 12, scale: 2 }), 'decimal(12,2)'],
    [facts('numeric', { precision: 38, scale: 0 }), 'numeric(38,0)'],
    [facts('varchar', { maxLength: 50 }), 'varchar(50)'],
    [facts('varchar', { maxLength: -1 }), 'varchar(max)'],
    [facts('nvarchar', { maxLength: 200 }), 'nvarchar(100)'],
    [facts('nvarchar', { maxLength: -1 }), 'nvarchar(max)'],
    [facts('nchar', { maxLength: 10 }), 'nchar(5)'],
    [facts('varbinary', { maxLength: -1 }), 'varbinary(max)'],
    [facts('binary', { maxLength: 16 }), 'binary(16)'],
    [facts('datetime2', { scale: 3 }), 'datetime2(3)'],
    [facts('datetimeoffset', { scale: 7 }), 'datetimeoffset(7)'],
    [facts('time', { scale: 0 }), 'time(0)'],
    [facts('datetime'), 'datetime'],
    [facts('Phone', { baseTypeName: 'varchar', maxLength: 20 }), 'Phone'],
    [facts('geography', { isAssemblyType: true, maxLength: -1 }), 'geography'],
  ])('shows %o as %s', (column, dataType) => {
    expect(formatDataType(column)).toBe(dataType);
  });

  it('survives a JSON round trip (the schema cache may live in Redis)', () => {
    const type = describeColumnType(facts('decimal', { precision: 12, scale: 2, maxLength: 9 }));
    const column = { name: 'amount', dataType: 'decimal(12,2)', engineType: JSON.parse(JSON.stringify(type)) as unknown };
    expect(sqlServerColumnType(column)).toEqual(type);
    expect(kindOfColumn(column)).toBe('decimal');
  });

  it('falls back to other for a column without a usable engine type', () => {
    expect(kindOfColumn({ name: 'x', dataType: 'int' })).toBe('other');
    expect(kindOfColumn({ name: 'x', dataType: 'int', engineType: { typeOid: 23 } })).toBe('other');
  });
});
