import { describe, expect, it } from 'vitest';
import type { ColumnInfo } from '../shared/engine-connector.js';
import { describeColumnType, mySqlCursorKind } from './mysql-types.js';
import { MySqlConnector } from './mysql.connector.js';

/** A column as discovery describes it from information_schema.COLUMNS. */
const column = (dataType: string, columnType = dataType, jsonChecked = false): ColumnInfo => ({
  name: 'c',
  dataType: columnType,
  engineType: describeColumnType({ dataType, columnType, numericPrecision: null, numericScale: null, jsonChecked }),
});

describe('MySQL cursor kinds', () => {
  it.each([
    ['tinyint', 'tinyint(4)'],
    ['tinyint', 'tinyint(3) unsigned'],
    // Unsigned TINYINT(1) is no BOOLEAN: it renders as an integer, so it can be a cursor.
    ['tinyint', 'tinyint(1) unsigned'],
    ['smallint', 'smallint(5) unsigned'],
    ['mediumint', 'mediumint(9)'],
    ['int', 'int(11)'],
    ['int', 'int(10) unsigned'],
    ['bigint', 'bigint(20)'],
    ['bigint', 'bigint(20) unsigned'],
  ])('%s (%s) is an integer cursor', (dataType, columnType) => {
    expect(mySqlCursorKind(column(dataType, columnType))).toBe('integer');
  });

  it('maps exact numbers and times to their kinds', () => {
    expect(mySqlCursorKind(column('decimal', 'decimal(38,10)'))).toBe('decimal');
    expect(mySqlCursorKind(column('decimal', 'decimal(10,2) unsigned'))).toBe('decimal');
    expect(mySqlCursorKind(column('date'))).toBe('date');
    expect(mySqlCursorKind(column('datetime', 'datetime(6)'))).toBe('timestamp');
    expect(mySqlCursorKind(column('timestamp', 'timestamp(6)'))).toBe('timestamptz');
  });

  it.each([
    ['tinyint', 'tinyint(1)'],
    ['year', 'year(4)'],
    ['float', 'float'],
    ['double', 'double'],
    ['time', 'time(6)'],
    ['bit', 'bit(1)'],
    ['bit', 'bit(64)'],
    ['varchar', 'varchar(20)'],
    ['longtext', 'longtext'],
    ['enum', "enum('a','b')"],
    ['set', "set('a','b')"],
    ['json', 'json'],
    ['varbinary', 'varbinary(16)'],
    ['blob', 'blob'],
    ['point', 'point'],
    ['uuid', 'uuid'],
    ['vector', 'vector(3)'],
  ])('refuses %s (%s)', (dataType, columnType) => {
    expect(mySqlCursorKind(column(dataType, columnType))).toBeNull();
  });

  it("refuses MariaDB's JSON alias and a column whose engine type it does not know", () => {
    expect(mySqlCursorKind(column('longtext', 'longtext', true))).toBeNull();
    expect(mySqlCursorKind({ name: 'c', dataType: 'int' })).toBeNull();
    expect(mySqlCursorKind({ name: 'c', dataType: 'int', engineType: { kind: 7 } })).toBeNull();
  });

  it('is what the connector answers', () => {
    expect(new MySqlConnector().cursorKind(column('bigint', 'bigint(20) unsigned'))).toBe('integer');
    expect(new MySqlConnector().cursorKind(column('tinyint', 'tinyint(1)'))).toBeNull();
  });
});
