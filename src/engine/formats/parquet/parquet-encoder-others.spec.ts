import { describe, expect, it } from 'vitest';
import { textOfEveryColumn, withParquetFile } from './testing/duckdb-parquet.js';
import { encodeRows } from './testing/encode-rows.js';
import { mongoField, oracleColumn, sqlServerColumn } from './testing/engine-columns.js';

/*
 * Rows exactly as the SQL Server, Oracle and MongoDB connectors render them (docs/value-mapping.md
 * and each engine's fidelity suite), encoded over several row groups from a reused buffer, read
 * back by DuckDB: declared types and every value as DuckDB's own text of it.
 */

/** The file's types and its first `rows` rows as text. */
async function readBack(bytes: Buffer, rows: number): Promise<{ types: Record<string, string>; values: (string | null)[][] }> {
  return withParquetFile(bytes, async (file) => {
    const types = await file.types();
    const values = await file.query(`SELECT ${textOfEveryColumn(types)} FROM '${file.path}' LIMIT ${rows}`);
    return { types, values };
  });
}

describe('Parquet encoder, SQL Server', () => {
  const columns = [
    sqlServerColumn('b', 'bit'),
    sqlServerColumn('ti', 'tinyint'),
    sqlServerColumn('bi', 'bigint'),
    sqlServerColumn('dec', 'decimal', 38, 10),
    sqlServerColumn('num', 'numeric', 12, 2),
    sqlServerColumn('m', 'money', 19, 4),
    sqlServerColumn('sm', 'smallmoney', 10, 4),
    sqlServerColumn('f', 'float', 53),
    sqlServerColumn('r', 'real', 24),
    sqlServerColumn('d', 'date'),
    sqlServerColumn('dt2', 'datetime2', 27, 7),
    sqlServerColumn('dt2ms', 'datetime2', 23, 3),
    sqlServerColumn('dt', 'datetime', 23, 3),
    sqlServerColumn('sdt', 'smalldatetime', 16, 0),
    sqlServerColumn('dto', 'datetimeoffset', 34, 7),
    sqlServerColumn('t', 'time', 16, 7),
    sqlServerColumn('u', 'uniqueidentifier'),
    sqlServerColumn('vb', 'varbinary', 0, 0, -1),
    sqlServerColumn('nvc', 'nvarchar', 0, 0, -1),
    sqlServerColumn('j', 'json'),
  ];
  const rows = [
    String.raw`{"b":true,"ti":255,"bi":9223372036854775807,"dec":"1234567890123456789012345678.0123456789","num":"100.50","m":"922337203685477.5807","sm":"-214748.3648","f":0.1,"r":0.1,"d":"2024-02-29","dt2":"2024-01-15T10:20:30.1234567","dt2ms":"2024-01-15T10:20:30.000","dt":"2024-01-15T10:20:30.997","sdt":"2024-01-15T10:21:00","dto":"2024-01-15T10:20:30.1234567+05:30","t":"23:59:59.9999999","u":"123e4567-e89b-12d3-a456-426655440000","vb":"AP8Q","nvc":"He said \"hi\" \\ back\nnew\tline \u0001 😀 ção ü","j":{"big":12345678901234567890,"s":"a b"}}`,
    String.raw`{"b":false,"ti":0,"bi":-9223372036854775808,"dec":"-0.0500000000","num":"-0.05","m":"-922337203685477.5808","sm":"0.0000","f":1e+300,"r":3.40282e+38,"d":"0001-01-01","dt2":"9999-12-31T23:59:59.9999999","dt2ms":"9999-12-31T23:59:59.999","dt":"1753-01-01T00:00:00.000","sdt":"1900-01-01T00:00:00","dto":"0001-01-01T00:00:00.0000000-14:00","t":"00:00:00.0000000","u":"00000000-0000-0000-0000-000000000000","vb":"","nvc":"","j":"not parsed"}`,
  ];
  const fill = Array.from({ length: 12 }, (_, i) => rows[1].replace('"ti":0', `"ti":${i + 1}`));

  it('declares each column’s type and reads back every value exactly', async () => {
    const { bytes, encoder } = await encodeRows('SQL_SERVER', columns, [...rows, ...fill], { rowGroupBytes: 1_000 });
    expect(encoder.rowGroupsWritten).toBeGreaterThan(2);
    const { types, values } = await readBack(bytes, 2);
    expect(types).toEqual({
      b: 'BOOLEAN',
      ti: 'INTEGER',
      bi: 'BIGINT',
      dec: 'DECIMAL(38,10)',
      num: 'DECIMAL(12,2)',
      m: 'DECIMAL(19,4)',
      sm: 'DECIMAL(10,4)',
      f: 'DOUBLE',
      r: 'FLOAT',
      d: 'DATE',
      dt2: 'VARCHAR',
      dt2ms: 'TIMESTAMP',
      dt: 'TIMESTAMP',
      sdt: 'TIMESTAMP',
      dto: 'VARCHAR',
      t: 'VARCHAR',
      u: 'UUID',
      vb: 'BLOB',
      nvc: 'VARCHAR',
      j: 'JSON',
    });
    expect(values).toEqual([
      [
        'true',
        '255',
        '9223372036854775807',
        '1234567890123456789012345678.0123456789',
        '100.50',
        '922337203685477.5807',
        '-214748.3648',
        '0.1',
        '0.1',
        '2024-02-29',
        '2024-01-15T10:20:30.1234567',
        '2024-01-15 10:20:30',
        '2024-01-15 10:20:30.997',
        '2024-01-15 10:21:00',
        '2024-01-15T10:20:30.1234567+05:30',
        '23:59:59.9999999',
        '123e4567-e89b-12d3-a456-426655440000',
        'AP8Q',
        'He said "hi" \\ back\nnew\tline \u0001 😀 ção ü',
        '{"big":12345678901234567890,"s":"a b"}',
      ],
      [
        'false',
        '0',
        '-9223372036854775808',
        '-0.0500000000',
        '-0.05',
        '-922337203685477.5808',
        '0.0000',
        '1e+300',
        '3.40282e+38',
        '0001-01-01',
        '9999-12-31T23:59:59.9999999',
        '9999-12-31 23:59:59.999',
        '1753-01-01 00:00:00',
        '1900-01-01 00:00:00',
        '0001-01-01T00:00:00.0000000-14:00',
        '00:00:00.0000000',
        '00000000-0000-0000-0000-000000000000',
        '',
        '',
        '"not parsed"',
      ],
    ]);
  });
});

describe('Parquet encoder, Oracle', () => {
  const columns = [
    oracleColumn('N9', 'NUMBER', 9, 0),
    oracleColumn('N18', 'NUMBER', 18, 0),
    oracleColumn('INT', 'NUMBER', null, 0),
    oracleColumn('AMOUNT', 'NUMBER', 10, 2),
    oracleColumn('FREE', 'NUMBER'),
    oracleColumn('BF', 'BINARY_FLOAT'),
    oracleColumn('BD', 'BINARY_DOUBLE'),
    oracleColumn('D', 'DATE'),
    oracleColumn('TS', 'TIMESTAMP(6)', null, 6),
    oracleColumn('TS9', 'TIMESTAMP(9)', null, 9),
    oracleColumn('TSTZ', 'TIMESTAMP(9) WITH TIME ZONE', null, 9),
    oracleColumn('TSLTZ', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', null, 6),
    oracleColumn('IYM', 'INTERVAL YEAR(2) TO MONTH'),
    oracleColumn('CH', 'CHAR', null, null),
    oracleColumn('RAWV', 'RAW'),
    oracleColumn('FLAG', 'BOOLEAN'),
    oracleColumn('DOC', 'JSON'),
    oracleColumn('VEC', 'VECTOR'),
  ];
  const rows = [
    String.raw`{"N9":-999999999,"N18":999999999999999999,"INT":12345678901234567890123456789012345678,"AMOUNT":"10.50","FREE":"0.1","BF":0.1,"BD":0.30000000000000004,"D":"2024-02-29T13:45:00","TS":"2024-01-15T10:20:30.123456","TS9":"2024-01-15T10:20:30.123456789","TSTZ":"2024-01-15T10:20:30.123456789+05:30","TSLTZ":"2024-01-15T08:20:30.500000Z","IYM":"-P3M","CH":"ab   ","RAWV":"/wA=","FLAG":true,"DOC":{"big":12345678901234567890},"VEC":[0.1,-2.5,3]}`,
    String.raw`{"N9":0,"N18":-999999999999999999,"INT":-99999999999999999999999999999999999999,"AMOUNT":"-0.05","FREE":"-12345678901234567890.123456789","BF":"NaN","BD":"Infinity","D":"-0044-03-15T00:00:00","TS":"1970-01-01T00:00:00.000000","TS9":"1970-01-01T00:00:00.000000000","TSTZ":"2024-01-15T10:20:30.000000000Z","TSLTZ":"1970-01-01T00:00:00.000000Z","IYM":"P1Y2M","CH":"     ","RAWV":"","FLAG":false,"DOC":[],"VEC":{"numDimensions":3,"indices":[0],"values":[1.5]}}`,
  ];
  const fill = Array.from({ length: 12 }, (_, i) => rows[1].replace('"N9":0', `"N9":${i + 1}`));

  it('declares each column’s type and reads back every value exactly, BC dates included', async () => {
    const { bytes, encoder } = await encodeRows('ORACLE', columns, [...rows, ...fill], { rowGroupBytes: 1_000 });
    expect(encoder.rowGroupsWritten).toBeGreaterThan(2);
    const { types, values } = await readBack(bytes, 2);
    expect(types).toEqual({
      N9: 'INTEGER',
      N18: 'BIGINT',
      INT: 'DECIMAL(38,0)',
      AMOUNT: 'DECIMAL(10,2)',
      FREE: 'VARCHAR',
      BF: 'FLOAT',
      BD: 'DOUBLE',
      D: 'TIMESTAMP',
      TS: 'TIMESTAMP',
      TS9: 'VARCHAR',
      TSTZ: 'VARCHAR',
      TSLTZ: 'TIMESTAMP WITH TIME ZONE',
      IYM: 'VARCHAR',
      CH: 'VARCHAR',
      RAWV: 'BLOB',
      FLAG: 'BOOLEAN',
      DOC: 'JSON',
      VEC: 'JSON',
    });
    expect(values).toEqual([
      [
        '-999999999',
        '999999999999999999',
        '12345678901234567890123456789012345678',
        '10.50',
        '0.1',
        '0.1',
        '0.30000000000000004',
        '2024-02-29 13:45:00',
        '2024-01-15 10:20:30.123456',
        '2024-01-15T10:20:30.123456789',
        '2024-01-15T10:20:30.123456789+05:30',
        '2024-01-15 08:20:30.5+00',
        '-P3M',
        'ab   ',
        '/wA=',
        'true',
        '{"big":12345678901234567890}',
        '[0.1,-2.5,3]',
      ],
      [
        '0',
        '-999999999999999999',
        '-99999999999999999999999999999999999999',
        '-0.05',
        '-12345678901234567890.123456789',
        'nan',
        'inf',
        // Oracle's -0044 is 44 BC, which DuckDB prints with the era.
        '0044-03-15 (BC) 00:00:00',
        '1970-01-01 00:00:00',
        '1970-01-01T00:00:00.000000000',
        '2024-01-15T10:20:30.000000000Z',
        '1970-01-01 00:00:00+00',
        'P1Y2M',
        '     ',
        '',
        'false',
        '[]',
        '{"numDimensions":3,"indices":[0],"values":[1.5]}',
      ],
    ]);
  });
});

describe('Parquet encoder, MongoDB', () => {
  const columns = [
    mongoField('_id', 'objectId'),
    mongoField('i', 'int', 'null'),
    mongoField('l', 'long', 'int'),
    mongoField('dbl', 'double', 'int'),
    mongoField('dec', 'decimal'),
    mongoField('b', 'bool'),
    mongoField('at', 'date'),
    mongoField('u', 'uuid'),
    mongoField('bin', 'binData'),
    mongoField('s', 'string'),
    mongoField('doc', 'object'),
    mongoField('tags', 'array', 'string', 'int'),
    mongoField('ts', 'timestamp'),
    mongoField('doc.city', 'string'),
  ];
  const rows = [
    String.raw`{"_id":"65a1b2c3d4e5f6a7b8c9d0e1","i":-2147483648,"l":9223372036854775807,"dbl":"NaN","dec":"1E+3","b":true,"at":"2024-01-15T08:20:30.123Z","u":"123e4567-e89b-12d3-a456-426655440000","bin":"AP8Q","s":"Lisboa 😀 \"x\" \\","doc":{"a":{"b":12345678901234567890}},"tags":["x",1],"ts":{"t":1700000000,"i":1},"doc.city":"Lisbon"}`,
    String.raw`{"_id":"65a1b2c3d4e5f6a7b8c9d0e2","i":null,"l":5,"dbl":5,"dec":"NaN","b":false,"at":"1969-12-31T23:59:59.999Z","u":null,"bin":"","s":"","doc":{},"tags":[],"ts":null,"doc.city":["A1","B2"]}`,
  ];
  const fill = Array.from({ length: 12 }, (_, i) => rows[1].replace('"l":5', `"l":${i + 6}`));

  it('types each field by its sampled BSON types, JSON text where they do not agree', async () => {
    const { bytes, encoder } = await encodeRows('MONGODB', columns, [...rows, ...fill], { rowGroupBytes: 800 });
    expect(encoder.rowGroupsWritten).toBeGreaterThan(2);
    const { types, values } = await readBack(bytes, 2);
    expect(types).toEqual({
      _id: 'VARCHAR',
      i: 'INTEGER',
      l: 'BIGINT',
      dbl: 'DOUBLE',
      dec: 'VARCHAR',
      b: 'BOOLEAN',
      at: 'TIMESTAMP WITH TIME ZONE',
      u: 'UUID',
      bin: 'BLOB',
      s: 'VARCHAR',
      doc: 'JSON',
      tags: 'JSON',
      ts: 'JSON',
      'doc.city': 'JSON',
    });
    expect(values).toEqual([
      [
        '65a1b2c3d4e5f6a7b8c9d0e1',
        '-2147483648',
        '9223372036854775807',
        'nan',
        '1E+3',
        'true',
        '2024-01-15 08:20:30.123+00',
        '123e4567-e89b-12d3-a456-426655440000',
        'AP8Q',
        'Lisboa 😀 "x" \\',
        '{"a":{"b":12345678901234567890}}',
        '["x",1]',
        '{"t":1700000000,"i":1}',
        '"Lisbon"',
      ],
      [
        '65a1b2c3d4e5f6a7b8c9d0e2',
        null,
        '5',
        '5.0',
        'NaN',
        'false',
        '1969-12-31 23:59:59.999+00',
        null,
        '',
        '',
        '{}',
        '[]',
        null,
        '["A1","B2"]',
      ],
    ]);
  });

  it('fails on a type the sample did not see, naming the field and the value', async () => {
    await expect(encodeRows('MONGODB', [mongoField('age', 'int')], ['{"age":41}', '{"age":"forty"}'], { table: 'people' })).rejects.toThrow(
      'Parquet: table "people" of "src", column "age" (INT32): the value "forty" is not an integer',
    );
  });
});
