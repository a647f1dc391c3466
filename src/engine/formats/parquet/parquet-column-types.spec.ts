import { describe, expect, it } from 'vitest';
import { PgOid } from '../../connectors/postgres/postgres-types.js';
import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import type { EngineType } from '../../connectors/shared/engine-facts.js';
import { parquetColumnOf } from './parquet-column-types.js';
import { describeParquetType } from './parquet-leaf.js';
import { decimalBytes } from './parquet-schema.js';
import { mongoField, mysqlColumn, oracleColumn, pgColumn, sqlServerColumn } from './testing/engine-columns.js';

/** Each case: a column as discovery describes it → the Parquet type, as describeParquetType prints it. */
function expectTypes(engine: EngineType, cases: readonly (readonly [ColumnInfo, string])[]): void {
  const actual = cases.map(([column]) => [column.name, describeParquetType(parquetColumnOf(engine, column))]);
  expect(actual).toEqual(cases.map(([column, type]) => [column.name, type]));
}

describe('parquetColumnOf', () => {
  it('PostgreSQL: by base type OID, numeric by its typmod, arrays as LISTs of their element type', () => {
    expectTypes('POSTGRESQL', [
      [pgColumn('i2', 'smallint', PgOid.int2), 'INT32'],
      [pgColumn('i4', 'integer', PgOid.int4), 'INT32'],
      [pgColumn('i8', 'bigint', PgOid.int8), 'INT64'],
      [pgColumn('oid', 'oid', PgOid.oid), 'INT64'],
      [pgColumn('n', 'numeric(38,10)', PgOid.numeric), 'DECIMAL(38,10)'],
      [pgColumn('n0', 'numeric(5,0)', PgOid.numeric), 'DECIMAL(5,0)'],
      [pgColumn('nneg', 'numeric(5,-2)', PgOid.numeric), 'DECIMAL(7,0)'],
      [pgColumn('nsmall', 'numeric(2,5)', PgOid.numeric), 'DECIMAL(5,5)'],
      [pgColumn('n39', 'numeric(39,2)', PgOid.numeric), 'STRING'],
      [pgColumn('nfree', 'numeric', PgOid.numeric), 'STRING'],
      [pgColumn('ndomain', 'positive_amount', PgOid.numeric), 'STRING'],
      [pgColumn('money', 'money', PgOid.money), 'STRING'],
      [pgColumn('f4', 'real', PgOid.float4), 'FLOAT'],
      [pgColumn('f8', 'double precision', PgOid.float8), 'DOUBLE'],
      [pgColumn('b', 'boolean', PgOid.bool), 'BOOLEAN'],
      [pgColumn('d', 'date', PgOid.date), 'DATE'],
      [pgColumn('ts', 'timestamp(3) without time zone', PgOid.timestamp), 'TIMESTAMP(MICROS)'],
      [pgColumn('tstz', 'timestamp with time zone', PgOid.timestamptz), 'TIMESTAMP(MICROS, UTC)'],
      [pgColumn('t', 'time without time zone', PgOid.time), 'STRING'],
      [pgColumn('ttz', 'time with time zone', PgOid.timetz), 'STRING'],
      [pgColumn('iv', 'interval', PgOid.interval), 'STRING'],
      [pgColumn('u', 'uuid', PgOid.uuid), 'UUID'],
      [pgColumn('j', 'json', PgOid.json), 'JSON'],
      [pgColumn('jb', 'jsonb', PgOid.jsonb), 'JSON'],
      [pgColumn('by', 'bytea', PgOid.bytea), 'BINARY'],
      [pgColumn('txt', 'text', PgOid.text), 'STRING'],
      [pgColumn('ch', 'character(5)', PgOid.bpchar), 'STRING'],
      [pgColumn('x', 'xml', PgOid.xml), 'STRING'],
      [pgColumn('mood', 'mood', 16_500, undefined, 'E'), 'STRING'],
      [pgColumn('inet', 'inet', 869, undefined, 'I'), 'STRING'],
      [pgColumn('ia', 'integer[]', 1007, PgOid.int4), 'LIST<INT32>'],
      [pgColumn('ba', 'bigint[]', 1016, PgOid.int8), 'LIST<INT64>'],
      [pgColumn('na', 'numeric(10,2)[]', 1231, PgOid.numeric), 'LIST<DECIMAL(10,2)>'],
      [pgColumn('ta', 'text[]', 1009, PgOid.text), 'LIST<STRING>'],
      [pgColumn('ja', 'jsonb[]', 3807, PgOid.jsonb), 'LIST<JSON>'],
      [pgColumn('tsa', 'timestamp without time zone[]', 1115, PgOid.timestamp), 'LIST<TIMESTAMP(MICROS)>'],
      [pgColumn('int2vector', 'int2vector', 22, PgOid.int2), 'STRING'],
      [{ name: 'unknown', dataType: 'mystery' }, 'STRING'],
    ]);
    // An enum or inet takes any value (`text`); a declared text type takes strings only.
    expect(parquetColumnOf('POSTGRESQL', pgColumn('mood', 'mood', 16_500)).leaf.type).toBe('text');
    expect(parquetColumnOf('POSTGRESQL', pgColumn('txt', 'text', PgOid.text)).leaf.type).toBe('string');
  });

  it('MySQL and MariaDB: integers by width and sign, DECIMAL up to 38 digits, DATETIME and TIMESTAMP apart', () => {
    expectTypes('MYSQL', [
      [mysqlColumn('ti', 'tinyint(4)'), 'INT32'],
      [mysqlColumn('tiu', 'tinyint(3) unsigned'), 'INT32'],
      [mysqlColumn('bool', 'tinyint(1)'), 'BOOLEAN'],
      [mysqlColumn('si', 'smallint(6)'), 'INT32'],
      [mysqlColumn('mi', 'mediumint(8) unsigned'), 'INT32'],
      [mysqlColumn('i', 'int(11)'), 'INT32'],
      [mysqlColumn('iu', 'int(10) unsigned'), 'INT64'],
      [mysqlColumn('bi', 'bigint(20)'), 'INT64'],
      [mysqlColumn('biu', 'bigint(20) unsigned'), 'DECIMAL(20,0)'],
      [mysqlColumn('y', 'year(4)'), 'INT32'],
      [mysqlColumn('dec', 'decimal(38,10)'), 'DECIMAL(38,10)'],
      [mysqlColumn('decu', 'decimal(10,2) unsigned'), 'DECIMAL(10,2)'],
      [mysqlColumn('dec65', 'decimal(65,30)'), 'STRING'],
      [mysqlColumn('f', 'float'), 'FLOAT'],
      [mysqlColumn('d', 'double'), 'DOUBLE'],
      [mysqlColumn('dt', 'date'), 'DATE'],
      [mysqlColumn('dtm', 'datetime(6)'), 'TIMESTAMP(MICROS)'],
      [mysqlColumn('ts', 'timestamp(6)'), 'TIMESTAMP(MICROS, UTC)'],
      [mysqlColumn('tm', 'time(6)'), 'STRING'],
      [mysqlColumn('bit1', 'bit(1)'), 'BOOLEAN'],
      [mysqlColumn('bit8', 'bit(8)'), 'INT32'],
      [mysqlColumn('bit64', 'bit(64)'), 'DECIMAL(20,0)'],
      [mysqlColumn('j', 'json'), 'JSON'],
      [mysqlColumn('mj', 'longtext', true), 'JSON'],
      [mysqlColumn('vb', 'varbinary(16)'), 'BINARY'],
      [mysqlColumn('blob', 'blob'), 'BINARY'],
      [mysqlColumn('vc', 'varchar(64)'), 'STRING'],
      [mysqlColumn('e', "enum('a','b')"), 'STRING'],
      [mysqlColumn('pt', 'point'), 'STRING'],
    ]);
  });

  it('SQL Server: decimal and money as DECIMAL, datetime2 up to 6 digits as TIMESTAMP, offsets as strings', () => {
    expectTypes('SQL_SERVER', [
      [sqlServerColumn('bit', 'bit'), 'BOOLEAN'],
      [sqlServerColumn('ti', 'tinyint'), 'INT32'],
      [sqlServerColumn('i', 'int'), 'INT32'],
      [sqlServerColumn('bi', 'bigint'), 'INT64'],
      [sqlServerColumn('dec', 'decimal', 38, 10), 'DECIMAL(38,10)'],
      [sqlServerColumn('num', 'numeric', 5, 2), 'DECIMAL(5,2)'],
      [sqlServerColumn('money', 'money', 19, 4), 'DECIMAL(19,4)'],
      [sqlServerColumn('smallmoney', 'smallmoney', 10, 4), 'DECIMAL(10,4)'],
      [sqlServerColumn('f', 'float', 53), 'DOUBLE'],
      [sqlServerColumn('r', 'real', 24), 'FLOAT'],
      [sqlServerColumn('d', 'date'), 'DATE'],
      [sqlServerColumn('dt2_3', 'datetime2', 23, 3), 'TIMESTAMP(MICROS)'],
      [sqlServerColumn('dt2_6', 'datetime2', 26, 6), 'TIMESTAMP(MICROS)'],
      [sqlServerColumn('dt2_7', 'datetime2', 27, 7), 'STRING'],
      [sqlServerColumn('dt', 'datetime', 23, 3), 'TIMESTAMP(MICROS)'],
      [sqlServerColumn('sdt', 'smalldatetime', 16, 0), 'TIMESTAMP(MICROS)'],
      [sqlServerColumn('dto', 'datetimeoffset', 34, 7), 'STRING'],
      [sqlServerColumn('t', 'time', 16, 7), 'STRING'],
      [sqlServerColumn('u', 'uniqueidentifier'), 'UUID'],
      [sqlServerColumn('vb', 'varbinary', 0, 0, -1), 'BINARY'],
      [sqlServerColumn('rv', 'timestamp'), 'BINARY'],
      [sqlServerColumn('nv', 'nvarchar', 0, 0, 128), 'STRING'],
      [sqlServerColumn('x', 'xml'), 'STRING'],
      [sqlServerColumn('j', 'json'), 'JSON'],
      [sqlServerColumn('v', 'sql_variant'), 'STRING'],
    ]);
  });

  it('Oracle: NUMBER by precision and scale, DATE and TIMESTAMP(≤6) as TIMESTAMP, WITH TIME ZONE as a string', () => {
    expectTypes('ORACLE', [
      [oracleColumn('n9', 'NUMBER', 9, 0), 'INT32'],
      [oracleColumn('n10', 'NUMBER', 10, 0), 'INT64'],
      [oracleColumn('n18', 'NUMBER', 18, 0), 'INT64'],
      [oracleColumn('n38', 'NUMBER', 38, 0), 'DECIMAL(38,0)'],
      [oracleColumn('integer', 'NUMBER', null, 0), 'DECIMAL(38,0)'],
      [oracleColumn('nneg', 'NUMBER', 5, -2), 'INT32'],
      [oracleColumn('nneg38', 'NUMBER', 38, -2), 'STRING'],
      [oracleColumn('n10_2', 'NUMBER', 10, 2), 'DECIMAL(10,2)'],
      [oracleColumn('nstar_2', 'NUMBER', null, 2), 'DECIMAL(38,2)'],
      [oracleColumn('n2_5', 'NUMBER', 2, 5), 'DECIMAL(5,5)'],
      [oracleColumn('number', 'NUMBER'), 'STRING'],
      [oracleColumn('float', 'FLOAT', 126), 'STRING'],
      [oracleColumn('bf', 'BINARY_FLOAT'), 'FLOAT'],
      [oracleColumn('bd', 'BINARY_DOUBLE'), 'DOUBLE'],
      [oracleColumn('d', 'DATE'), 'TIMESTAMP(MICROS)'],
      [oracleColumn('ts', 'TIMESTAMP(6)', null, 6), 'TIMESTAMP(MICROS)'],
      [oracleColumn('ts9', 'TIMESTAMP(9)', null, 9), 'STRING'],
      [oracleColumn('tstz', 'TIMESTAMP(6) WITH TIME ZONE', null, 6), 'STRING'],
      [oracleColumn('tsltz', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6), 'TIMESTAMP(MICROS, UTC)'],
      [oracleColumn('iym', 'INTERVAL YEAR(2) TO MONTH'), 'STRING'],
      [oracleColumn('ids', 'INTERVAL DAY(2) TO SECOND(6)'), 'STRING'],
      [oracleColumn('v', 'VARCHAR2'), 'STRING'],
      [oracleColumn('clob', 'CLOB'), 'STRING'],
      [oracleColumn('raw', 'RAW'), 'BINARY'],
      [oracleColumn('blob', 'BLOB'), 'BINARY'],
      [oracleColumn('bool', 'BOOLEAN'), 'BOOLEAN'],
      [oracleColumn('json', 'JSON'), 'JSON'],
      [oracleColumn('vec', 'VECTOR'), 'JSON'],
      [oracleColumn('rowid', 'ROWID'), 'STRING'],
    ]);
  });

  it('MongoDB: by the BSON types sampled, JSON text where they do not agree or the path is nested', () => {
    expectTypes('MONGODB', [
      [mongoField('_id', 'objectId'), 'STRING'],
      [mongoField('i', 'int', 'null'), 'INT32'],
      [mongoField('l', 'long'), 'INT64'],
      [mongoField('il', 'int', 'long'), 'INT64'],
      [mongoField('id', 'int', 'double'), 'DOUBLE'],
      [mongoField('ld', 'long', 'double'), 'JSON'],
      [mongoField('dec', 'decimal'), 'STRING'],
      [mongoField('b', 'bool'), 'BOOLEAN'],
      [mongoField('at', 'date'), 'TIMESTAMP(MILLIS, UTC)'],
      [mongoField('u', 'uuid'), 'UUID'],
      [mongoField('bin', 'binData'), 'BINARY'],
      [mongoField('s', 'string', 'objectId'), 'STRING'],
      [mongoField('re', 'regex'), 'STRING'],
      [mongoField('doc', 'object'), 'JSON'],
      [mongoField('tags', 'array', 'string'), 'JSON'],
      [mongoField('ts', 'timestamp'), 'JSON'],
      [mongoField('mixed', 'string', 'int'), 'JSON'],
      [mongoField('nulls', 'null'), 'JSON'],
      [mongoField('doc.city', 'string'), 'JSON'],
    ]);
  });
});

describe('decimalBytes', () => {
  it('is the smallest two’s complement width that holds every value of the precision', () => {
    expect([1, 2, 9, 10, 18, 19, 20, 38].map(decimalBytes)).toEqual([1, 1, 4, 5, 8, 9, 9, 16]);
  });
});
