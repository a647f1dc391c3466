import { describe, expect, it } from 'vitest';
import { type CatalogRow, jsonCheckedColumn, toSnapshot } from './mysql-discovery.js';
import { describeColumnType, type MySqlValueKind } from './mysql-types.js';

// Rows as COLUMNS_SQL returns them through mysql2: database, table, column, COLUMN_TYPE,
// DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE (digit strings: BIGINT UNSIGNED in the catalog).
const COLUMN_ROWS: CatalogRow[] = [
  ['shop', 'Order Lines', 'line', 'int(11)', 'int', '10', '0'],
  ['shop', 'Foo', 'A', 'int(11)', 'int', '10', '0'],
  ['shop', 'Order Lines', 'select', 'text', 'text', null, null],
  ['shop', 'foo', 'b', 'varchar(3)', 'varchar', null, null],
  ['shop', 'Order Lines', 'Order', 'bigint(20) unsigned', 'bigint', '20', '0'],
  ['shop', 'Foo', 'doc', 'longtext', 'longtext', null, null],
  ['shop', 'Foo', 'amount', 'decimal(38,10)', 'decimal', '38', '10'],
  ['shop', 'Foo', 'memo', 'longtext', 'longtext', null, null],
];
const KEY_ROWS: CatalogRow[] = [
  ['Order Lines', 'Order'],
  ['Order Lines', 'line'],
  ['Foo', 'A'],
];
const CHECK_ROWS: CatalogRow[] = [
  ['Foo', 'json_valid(`doc`)'],
  ['foo', 'json_valid(`memo`)'],
  ['Foo', "json_valid(`memo`) and `memo` <> ''"],
];

describe('MySQL discovery snapshot', () => {
  const snapshot = toSnapshot(COLUMN_ROWS, KEY_ROWS, CHECK_ROWS);

  it('keys every table by its bare name, even ones differing only in case', () => {
    expect([...snapshot.tables.keys()]).toEqual(['Order Lines', 'Foo', 'foo']);
    expect(snapshot.tables.get('Foo')).toMatchObject({ schema: 'shop', name: 'Foo', key: 'Foo' });
  });

  it('keeps columns in catalog order and the primary key in key order', () => {
    const lines = snapshot.tables.get('Order Lines')!;
    expect(lines.columns.map((c) => c.name)).toEqual(['line', 'select', 'Order']);
    expect(lines.columns.map((c) => c.dataType)).toEqual(['int(11)', 'text', 'bigint(20) unsigned']);
    expect(lines.primaryKey).toEqual(['Order', 'line']);
    expect(snapshot.tables.get('foo')!.primaryKey).toEqual([]);
  });

  it('marks a text column as JSON only by its own exact json_valid check', () => {
    const foo = snapshot.tables.get('Foo')!;
    const kind = (name: string) => (foo.columns.find((c) => c.name === name)!.engineType as { kind: string }).kind;
    expect(kind('doc')).toBe('json-checked');
    // `memo`'s exact check belongs to table `foo`, not `Foo`; its own check is not a bare json_valid.
    expect(kind('memo')).toBe('text');
  });

  it('carries the type facts the value mapping and filters need, as plain JSON data', () => {
    const foo = snapshot.tables.get('Foo')!;
    expect(foo.columns.find((c) => c.name === 'amount')).toEqual({
      name: 'amount',
      dataType: 'decimal(38,10)',
      engineType: { dataType: 'decimal', unsigned: false, kind: 'decimal', castType: 'DECIMAL(65,30)' },
    });
    expect(snapshot.tables.get('Order Lines')!.columns[2].engineType).toEqual({
      dataType: 'bigint',
      unsigned: true,
      kind: 'integer',
      castType: 'DECIMAL(65,30)',
    });
    expect(JSON.parse(JSON.stringify(foo.columns))).toEqual(foo.columns);
  });

  it('reads the column name out of a json_valid clause', () => {
    expect(jsonCheckedColumn('json_valid(`doc`)')).toBe('doc');
    expect(jsonCheckedColumn('JSON_VALID(`a``b`)')).toBe('a`b');
    expect(jsonCheckedColumn('json_valid(`a`) and json_valid(`b`)')).toBeNull();
    expect(jsonCheckedColumn('json_valid(concat(`a`))')).toBeNull();
  });
});

describe('MySQL column kinds', () => {
  const kind = (dataType: string, columnType = dataType, jsonChecked = false): MySqlValueKind =>
    describeColumnType({ dataType, columnType, numericPrecision: null, numericScale: null, jsonChecked }).kind;

  it.each<[string, string, MySqlValueKind]>([
    ['tinyint', 'tinyint(4)', 'integer'],
    ['tinyint', 'tinyint(1)', 'boolean'],
    ['tinyint', 'tinyint(1) unsigned', 'integer'],
    ['smallint', 'smallint(6)', 'integer'],
    ['mediumint', 'mediumint(8) unsigned', 'integer'],
    ['int', 'int(10) unsigned', 'integer'],
    ['bigint', 'bigint(20) unsigned', 'integer'],
    ['year', 'year(4)', 'integer'],
    ['decimal', 'decimal(10,2)', 'decimal'],
    ['float', 'float', 'float'],
    ['double', 'double', 'double'],
    ['date', 'date', 'date'],
    ['datetime', 'datetime(6)', 'datetime'],
    ['timestamp', 'timestamp(3)', 'timestamp'],
    ['time', 'time(6)', 'time'],
    ['bit', 'bit(1)', 'bit-boolean'],
    ['bit', 'bit(8)', 'bit'],
    ['json', 'json', 'json'],
    ['blob', 'blob', 'binary'],
    ['varbinary', 'varbinary(16)', 'binary'],
    ['binary', 'binary(4)', 'binary'],
    ['enum', "enum('a','b')", 'text'],
    ['set', "set('a','b')", 'text'],
    ['uuid', 'uuid', 'text'],
    ['inet6', 'inet6', 'text'],
    ['char', 'char(5)', 'text'],
    ['point', 'point', 'spatial'],
    ['geometry', 'geometry', 'spatial'],
    ['vector', 'vector(3)', 'other'],
  ])('%s (%s) → %s', (dataType, columnType, expected) => {
    expect(kind(dataType, columnType)).toBe(expected);
  });

  it('treats a json_valid check as JSON only on text types', () => {
    expect(kind('longtext', 'longtext', true)).toBe('json-checked');
    expect(kind('varchar', 'varchar(100)', true)).toBe('json-checked');
    expect(kind('blob', 'blob', true)).toBe('binary');
  });

  it('casts filter values to a DECIMAL wide enough for the column', () => {
    const cast = (precision: number, scale: number) =>
      describeColumnType({
        dataType: 'decimal',
        columnType: 'decimal',
        numericPrecision: precision,
        numericScale: scale,
        jsonChecked: false,
      }).castType;
    expect(cast(10, 2)).toBe('DECIMAL(65,30)');
    expect(cast(65, 0)).toBe('DECIMAL(65,0)');
    expect(cast(60, 10)).toBe('DECIMAL(65,15)');
  });
});
