import { describe, expect, it } from 'vitest';
import { PgOid } from '../../connectors/postgres/postgres-types.js';
import { textOfEveryColumn, withParquetFile } from './testing/duckdb-parquet.js';
import { encodeRows } from './testing/encode-rows.js';
import { mysqlColumn, pgColumn } from './testing/engine-columns.js';

/*
 * Rows exactly as the PostgreSQL and MySQL connectors render them (docs/value-mapping.md), encoded
 * over several row groups from a reused buffer, then read back by DuckDB: declared types and every
 * value as DuckDB's own text of it.
 */

/** Rows (besides the given ones) that only make the file span more row groups. */
const filler = (count: number, row: (i: number) => string): string[] => Array.from({ length: count }, (_, i) => row(i));

describe('Parquet encoder, PostgreSQL', () => {
  const columns = [
    pgColumn('id', 'integer', PgOid.int4),
    pgColumn('big', 'bigint', PgOid.int8),
    pgColumn('amount', 'numeric(38,10)', PgOid.numeric),
    pgColumn('price', 'numeric(10,2)', PgOid.numeric),
    pgColumn('n', 'numeric', PgOid.numeric),
    pgColumn('f4', 'real', PgOid.float4),
    pgColumn('f8', 'double precision', PgOid.float8),
    pgColumn('ok', 'boolean', PgOid.bool),
    pgColumn('d', 'date', PgOid.date),
    pgColumn('ts', 'timestamp without time zone', PgOid.timestamp),
    pgColumn('tstz', 'timestamp with time zone', PgOid.timestamptz),
    pgColumn('ttz', 'time with time zone', PgOid.timetz),
    pgColumn('iv', 'interval', PgOid.interval),
    pgColumn('u', 'uuid', PgOid.uuid),
    pgColumn('j', 'jsonb', PgOid.jsonb),
    pgColumn('by', 'bytea', PgOid.bytea),
    pgColumn('ia', 'integer[]', 1007, PgOid.int4),
    pgColumn('na', 'numeric(10,2)[]', 1231, PgOid.numeric),
    pgColumn('ta', 'text[]', 1009, PgOid.text),
    pgColumn('ja', 'jsonb[]', 3807, PgOid.jsonb),
    pgColumn('txt', 'text', PgOid.text),
    pgColumn('ch', 'character(5)', PgOid.bpchar),
    pgColumn('mood', 'mood', 16_500, undefined, 'E'),
  ];
  const rows = [
    String.raw`{"id":1,"big":9223372036854775807,"amount":"1234567890123456789012345678.0123456789","price":"-0.05","n":"NaN","f4":3.4028235e+38,"f8":"Infinity","ok":true,"d":"2024-02-29","ts":"2024-01-15T10:20:30.123456","tstz":"2024-01-15T08:20:30.123456Z","ttz":"10:20:30.5+05:30","iv":"P1Y2M3DT4H5M6S","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","j":{"big":12345678901234567890,"n":[1,2]},"by":"AP8Q","ia":[1,null,3],"na":["1.50",null,"-0.05"],"ta":["a,b",null,"\"q\"\\"],"ja":[{"a":1},null,[2]],"txt":"Ünïcødé 😀 \"quote\" \\ back","ch":"ab   ","mood":"happy"}`,
    String.raw`{"id":-2147483648,"big":-9223372036854775808,"amount":"-9999999999999999999999999999.9999999999","price":"0.00","n":"0.000000000000000000000000000000000000000001","f4":0.1,"f8":-0,"ok":false,"d":"0044-03-15 BC","ts":"2024-01-15T10:20:30","tstz":"0044-03-15 12:00:00+00 BC","ttz":"00:00:00+00:00","iv":"P-1D","u":"00000000-0000-0000-0000-000000000000","j":"just a string","by":"","ia":[],"na":[],"ta":[""],"ja":[],"txt":"","ch":"     ","mood":"sad"}`,
    String.raw`{"id":null,"big":null,"amount":null,"price":null,"n":null,"f4":null,"f8":null,"ok":null,"d":null,"ts":null,"tstz":null,"ttz":null,"iv":null,"u":null,"j":null,"by":null,"ia":null,"na":null,"ta":null,"ja":null,"txt":null,"ch":null,"mood":null}`,
    String.raw`{"id":2147483647,"big":9007199254740993,"amount":"0.0000000001","price":"99999999.99","n":"12.50","f4":"-Infinity","f8":"NaN","ok":true,"d":"5874897-12-31","ts":"1969-12-31T23:59:59.999999","tstz":"2262-04-11T23:47:16.854775Z","ttz":"23:59:59.999999-12:00","iv":"PT0S","u":"ffffffff-ffff-ffff-ffff-ffffffffffff","j":12345678901234567890,"by":"AAAAAAAAB9E=","ia":[null],"na":[null],"ta":[null],"ja":[null],"txt":"a\u0000b\ttab","ch":"x    ","mood":"ok"}`,
  ];
  const fill = filler(30, (i) => rows[2].replace('"id":null', `"id":${1000 + i}`));

  it('declares each column’s type and reads back every value exactly, over several row groups', async () => {
    const { bytes, encoder } = await encodeRows('POSTGRESQL', columns, [...rows, ...fill], { rowGroupBytes: 2_000, rowsPerBatch: 3 });
    expect(encoder.rowGroupsWritten).toBeGreaterThan(2);
    await withParquetFile(bytes, async (file) => {
      const types = await file.types();
      expect(types).toEqual({
        id: 'INTEGER',
        big: 'BIGINT',
        amount: 'DECIMAL(38,10)',
        price: 'DECIMAL(10,2)',
        n: 'VARCHAR',
        f4: 'FLOAT',
        f8: 'DOUBLE',
        ok: 'BOOLEAN',
        d: 'DATE',
        ts: 'TIMESTAMP',
        tstz: 'TIMESTAMP WITH TIME ZONE',
        ttz: 'VARCHAR',
        iv: 'VARCHAR',
        u: 'UUID',
        j: 'JSON',
        by: 'BLOB',
        ia: 'INTEGER[]',
        na: 'DECIMAL(10,2)[]',
        ta: 'VARCHAR[]',
        ja: 'JSON[]',
        txt: 'VARCHAR',
        ch: 'VARCHAR',
        mood: 'VARCHAR',
      });
      const [groups] = await file.query(`SELECT num_row_groups, num_rows FROM parquet_file_metadata('${file.path}')`);
      expect(groups).toEqual([String(encoder.rowGroupsWritten), String(rows.length + fill.length)]);
      const values = await file.query(`SELECT ${textOfEveryColumn(types)} FROM '${file.path}' LIMIT 4`);
      expect(values).toEqual([
        [
          '1',
          '9223372036854775807',
          '1234567890123456789012345678.0123456789',
          '-0.05',
          'NaN',
          '3.4028235e+38',
          'inf',
          'true',
          '2024-02-29',
          '2024-01-15 10:20:30.123456',
          '2024-01-15 08:20:30.123456+00',
          '10:20:30.5+05:30',
          'P1Y2M3DT4H5M6S',
          'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
          '{"big":12345678901234567890,"n":[1,2]}',
          'AP8Q',
          '[1, NULL, 3]',
          '[1.50, NULL, -0.05]',
          String.raw`['a,b', NULL, '"q"\\']`,
          '[{"a":1}, NULL, [2]]',
          'Ünïcødé 😀 "quote" \\ back',
          'ab   ',
          'happy',
        ],
        [
          '-2147483648',
          '-9223372036854775808',
          '-9999999999999999999999999999.9999999999',
          '0.00',
          '0.000000000000000000000000000000000000000001',
          '0.1',
          '-0.0',
          'false',
          '0044-03-15 (BC)',
          '2024-01-15 10:20:30',
          '0044-03-15 (BC) 12:00:00+00',
          '00:00:00+00:00',
          'P-1D',
          '00000000-0000-0000-0000-000000000000',
          '"just a string"',
          '',
          '[]',
          '[]',
          "['']",
          '[]',
          '',
          '     ',
          'sad',
        ],
        columns.map(() => null),
        [
          '2147483647',
          '9007199254740993',
          '0.0000000001',
          '99999999.99',
          '12.50',
          '-inf',
          'nan',
          'true',
          '5874897-12-31',
          '1969-12-31 23:59:59.999999',
          '2262-04-11 23:47:16.854775+00',
          '23:59:59.999999-12:00',
          'PT0S',
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          '12345678901234567890',
          'AAAAAAAAB9E=',
          '[NULL]',
          '[NULL]',
          '[NULL]',
          '[NULL]',
          'a\u0000b\ttab',
          'x    ',
          'ok',
        ],
      ]);
      // Values themselves, not only DuckDB's text of them: the largest single, an element DuckDB's
      // list text escapes, a JSON member, -0, an empty list and bytes against NULL.
      const [first] = await file.query(`SELECT f4 = 3.4028235e38::FLOAT, ta[3], j->>'big', ja[1]->>'a' FROM '${file.path}' WHERE id = 1`);
      expect(first).toEqual(['true', '"q"\\', '12345678901234567890', '1']);
      const [second] = await file.query(
        `SELECT signbit(f8), ia IS NULL, len(ia), len(ta), octet_length("by"), j->>'$' FROM '${file.path}' WHERE id = -2147483648`,
      );
      expect(second).toEqual(['true', 'false', '0', '1', '0', 'just a string']);
    });
  });

  it('fails on a NaN in a constrained numeric, naming the table, the column and the value', async () => {
    const price = [pgColumn('id', 'integer', PgOid.int4), pgColumn('price', 'numeric(10,2)', PgOid.numeric)];
    const message =
      'Parquet: table "sales.orders" of "src", column "price" (DECIMAL(10,2)): the value "NaN" is NaN, which DECIMAL cannot hold';
    await expect(
      encodeRows('POSTGRESQL', price, ['{"id":1,"price":"1.00"}', '{"id":2,"price":"NaN"}'], { table: 'sales.orders' }),
    ).rejects.toMatchObject({
      code: 'FET-1060',
      message,
      details: [{ type: 'value_not_representable', datasource: 'src', table: 'sales.orders', field: 'price', message }],
    });
    const dates = [pgColumn('valid_to', 'date', PgOid.date)];
    await expect(encodeRows('POSTGRESQL', dates, ['{"valid_to":"infinity"}'])).rejects.toThrow(
      'column "valid_to" (DATE): the value "infinity" is infinity, which a Parquet date or timestamp cannot hold',
    );
  });
});

describe('Parquet encoder, MySQL and MariaDB', () => {
  const columns = [
    mysqlColumn('ti', 'tinyint(4)'),
    mysqlColumn('tiu', 'tinyint(3) unsigned'),
    mysqlColumn('flag', 'tinyint(1)'),
    mysqlColumn('iu', 'int(10) unsigned'),
    mysqlColumn('bi', 'bigint(20)'),
    mysqlColumn('biu', 'bigint(20) unsigned'),
    mysqlColumn('y', 'year(4)'),
    mysqlColumn('dec', 'decimal(38,10)'),
    mysqlColumn('dec65', 'decimal(65,30)'),
    mysqlColumn('f', 'float'),
    mysqlColumn('dbl', 'double'),
    mysqlColumn('dt', 'date'),
    mysqlColumn('dtm', 'datetime(6)'),
    mysqlColumn('ts', 'timestamp(6)'),
    mysqlColumn('tm', 'time(6)'),
    mysqlColumn('bit1', 'bit(1)'),
    mysqlColumn('bit64', 'bit(64)'),
    mysqlColumn('j', 'json'),
    mysqlColumn('mj', 'longtext', true),
    mysqlColumn('vb', 'varbinary(16)'),
    mysqlColumn('vc', 'varchar(64)'),
    mysqlColumn('st', "set('a','b','c')"),
    mysqlColumn('pt', 'point'),
  ];
  const rows = [
    String.raw`{"ti":-128,"tiu":255,"flag":true,"iu":4294967295,"bi":-9223372036854775808,"biu":18446744073709551615,"y":2024,"dec":"-0.0500000000","dec65":"12345678901234567890123456789012345.123456789012345678901234567890","f":3.40282e+38,"dbl":1e300,"dt":"2024-02-29","dtm":"2024-01-15T10:20:30.123456","ts":"2024-01-15T08:20:30.123456Z","tm":"-838:59:59.000000","bit1":true,"bit64":18446744073709551615,"j":{"big":12345678901234567890,"s":"a b","n":[1,2.50]},"mj":{"k":"v"},"vb":"AQAAAA==","vc":"😀 \\ \"","st":"a,c","pt":"POINT(1 2)"}`,
    String.raw`{"ti":127,"tiu":0,"flag":false,"iu":0,"bi":9223372036854775807,"biu":0,"y":1901,"dec":"9999999999999999999999999999.9999999999","dec65":"0.000000000000000000000000000000","f":0.1,"dbl":0.1,"dt":null,"dtm":"2024-01-15T10:20:30","ts":"1970-01-01T00:00:01.000000Z","tm":"00:00:00.000000","bit1":false,"bit64":0,"j":[],"mj":"not json {","vb":"","vc":"","st":"","pt":"POINT(0 0)"}`,
  ];
  const fill = filler(20, (i) => rows[1].replace('"ti":127', `"ti":${i}`));

  it('declares each column’s type and reads back every value exactly, over several row groups', async () => {
    const { bytes, encoder } = await encodeRows('MYSQL', columns, [...rows, ...fill], { rowGroupBytes: 1_000 });
    expect(encoder.rowGroupsWritten).toBeGreaterThan(2);
    await withParquetFile(bytes, async (file) => {
      const types = await file.types();
      expect(types).toEqual({
        ti: 'INTEGER',
        tiu: 'INTEGER',
        flag: 'BOOLEAN',
        iu: 'BIGINT',
        bi: 'BIGINT',
        biu: 'DECIMAL(20,0)',
        y: 'INTEGER',
        dec: 'DECIMAL(38,10)',
        dec65: 'VARCHAR',
        f: 'FLOAT',
        dbl: 'DOUBLE',
        dt: 'DATE',
        dtm: 'TIMESTAMP',
        ts: 'TIMESTAMP WITH TIME ZONE',
        tm: 'VARCHAR',
        bit1: 'BOOLEAN',
        bit64: 'DECIMAL(20,0)',
        j: 'JSON',
        mj: 'JSON',
        vb: 'BLOB',
        vc: 'VARCHAR',
        st: 'VARCHAR',
        pt: 'VARCHAR',
      });
      const values = await file.query(`SELECT ${textOfEveryColumn(types)} FROM '${file.path}' LIMIT 2`);
      expect(values).toEqual([
        [
          '-128',
          '255',
          'true',
          '4294967295',
          '-9223372036854775808',
          '18446744073709551615',
          '2024',
          '-0.0500000000',
          '12345678901234567890123456789012345.123456789012345678901234567890',
          '3.40282e+38',
          '1e+300',
          '2024-02-29',
          '2024-01-15 10:20:30.123456',
          '2024-01-15 08:20:30.123456+00',
          '-838:59:59.000000',
          'true',
          '18446744073709551615',
          '{"big":12345678901234567890,"s":"a b","n":[1,2.50]}',
          '{"k":"v"}',
          'AQAAAA==',
          '😀 \\ "',
          'a,c',
          'POINT(1 2)',
        ],
        [
          '127',
          '0',
          'false',
          '0',
          '9223372036854775807',
          '0',
          '1901',
          '9999999999999999999999999999.9999999999',
          '0.000000000000000000000000000000',
          '0.1',
          '0.1',
          null,
          '2024-01-15 10:20:30',
          '1970-01-01 00:00:01+00',
          '00:00:00.000000',
          'false',
          '0',
          '[]',
          '"not json {"',
          '',
          '',
          '',
          'POINT(0 0)',
        ],
      ]);
    });
  });
});
