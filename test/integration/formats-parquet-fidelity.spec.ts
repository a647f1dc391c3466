import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { textOfEveryColumn, withParquetFile } from '../../src/engine/formats/parquet/testing/duckdb-parquet.js';
import { FIDELITY_TEXT, MARIADB_FIDELITY_COLUMNS, MARIADB_FIDELITY_SQL, PG_FIDELITY_SQL } from '../helpers/fidelity-tables.js';
import { createTempMariaDatabase, type TempMariaDatabase } from '../helpers/mariadb-database.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/*
 * The fidelity tables of the connector suites, extracted through the engine as Parquet (one part
 * per table, in memory without a sink) and read back by DuckDB: every column's declared type and
 * every value, against what the source holds.
 */

const engine = createEngine();

/** The Parquet part of `table`, extracted with the request's `columns` and `filters`. */
async function parquetPart(url: string, table: string, columns: readonly string[], filters?: object): Promise<Buffer> {
  const result = await engine.extract({
    datasources: { src: url },
    dataRequest: { mappedFields: { src: { [table]: [...columns] } }, ...(filters ? { filters: { src: { [table]: filters } } } : {}) },
    output: { format: 'parquet' },
  });
  expect(result.parts?.map((part) => [part.table, part.format, part.path.endsWith(`${table}.parquet`)])).toEqual([
    [table, 'parquet', true],
  ]);
  return result.parts?.[0].bytes as Buffer;
}

/** The file's declared types, and its rows (ordered by `id`) as DuckDB's text of each value. */
async function readBack(bytes: Buffer): Promise<{ types: Record<string, string>; rows: (string | null)[][] }> {
  return withParquetFile(bytes, async (file) => {
    const types = await file.types();
    return { types, rows: await file.query(`SELECT ${textOfEveryColumn(types)} FROM '${file.path}' ORDER BY id`) };
  });
}

/** Expected rows: each column's value by name, every other column NULL. */
const rowsOf = (columns: readonly string[], rows: readonly Record<string, string>[]): (string | null)[][] =>
  rows.map((row) => columns.map((column) => row[column] ?? null));

describe('Parquet from PostgreSQL: the fidelity table', () => {
  let db: TempDatabase;

  beforeAll(async () => {
    db = await createTempDatabase('parquet_fidelity');
    await db.query(PG_FIDELITY_SQL);
  });

  afterAll(async () => {
    await db?.drop();
  });

  // `grid` (int[][]) and row 2 (NaN in numeric(38,10), ±infinity dates) hold what no Parquet type of
  // their column holds: they are the next test's.
  const COLUMNS = [
    'id',
    'i2',
    'i4',
    'i8',
    'num',
    'cash',
    'amt',
    'f4',
    'f8',
    'flag',
    'd',
    'ts',
    'tstz',
    't',
    'ttz',
    'iv',
    'u',
    'j',
    'jb',
    'bin',
  ].concat(['ints', 'texts', 'nums', 'tstzs', 'flags', 'jbs', 'txt', 'fixed', 'm', 'addr']);

  it('declares every column’s type from the catalog and keeps every value exactly', async () => {
    const { types, rows } = await readBack(await parquetPart(db.url, 'fidelity', COLUMNS, { id: { ne: [2] } }));
    expect(types).toEqual({
      id: 'INTEGER',
      i2: 'INTEGER',
      i4: 'INTEGER',
      i8: 'BIGINT',
      num: 'DECIMAL(38,10)',
      cash: 'VARCHAR',
      amt: 'VARCHAR',
      f4: 'FLOAT',
      f8: 'DOUBLE',
      flag: 'BOOLEAN',
      d: 'DATE',
      ts: 'TIMESTAMP',
      tstz: 'TIMESTAMP WITH TIME ZONE',
      t: 'VARCHAR',
      ttz: 'VARCHAR',
      iv: 'VARCHAR',
      u: 'UUID',
      j: 'JSON',
      jb: 'JSON',
      bin: 'BLOB',
      ints: 'INTEGER[]',
      texts: 'VARCHAR[]',
      nums: 'VARCHAR[]',
      tstzs: 'TIMESTAMP WITH TIME ZONE[]',
      flags: 'BOOLEAN[]',
      jbs: 'JSON[]',
      txt: 'VARCHAR',
      fixed: 'VARCHAR',
      m: 'VARCHAR',
      addr: 'VARCHAR',
    });
    expect(rows).toEqual(
      rowsOf(COLUMNS, [
        {
          id: '1',
          i2: '32767',
          i4: '-2147483648',
          i8: '9007199254740993',
          num: '1234567890123456789012345678.0123456789',
          cash: '12.50',
          amt: '100.50',
          f4: '1.5',
          f8: '0.1',
          flag: 'true',
          d: '2024-02-29',
          ts: '2024-01-15 10:20:30.123456',
          // Stored at +02: the instant, in UTC.
          tstz: '2024-01-15 08:20:30.123456+00',
          t: '23:59:59.999999',
          ttz: '10:20:30.5+05:30',
          iv: 'P1Y2M3DT4H5M6S',
          u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
          j: '{"big":12345678901234567890,"s":"a b","n":[1,2]}',
          jb: '{"n":[1,2],"s":"a b","big":12345678901234567890}',
          bin: 'AP8Q',
          ints: '[1, NULL, 3]',
          texts: `['a,b', 'c"d', NULL, 'NULL', '']`,
          nums: '[1.50, NULL, NaN]',
          tstzs: "['2024-01-15 10:20:30+00', NULL]",
          flags: '[true, false, NULL]',
          jbs: '[{"k":[1,2]}]',
          txt: FIDELITY_TEXT,
          fixed: 'ab   ',
          m: 'happy',
          addr: '192.168.0.1/24',
        },
        { id: '3', f4: '3.4028235e+38', f8: '-inf' },
        { id: '4', f8: '1e+300' },
      ]),
    );
    // The values themselves where DuckDB's list text quotes or escapes them.
    await withParquetFile(await parquetPart(db.url, 'fidelity', ['id', 'texts', 'nums', 'bin'], { id: { eq: [1] } }), async (file) => {
      const [row] = await file.query(`SELECT texts[2], texts[4], texts[5], nums[3], octet_length(bin) FROM '${file.path}'`);
      expect(row).toEqual(['c"d', 'NULL', '', 'NaN', '3']);
    });
  });

  it('fails the job on a NaN in a constrained numeric, on infinity and on a multi-dimensional array, naming each', async () => {
    await expect(parquetPart(db.url, 'fidelity', ['id', 'num'])).rejects.toMatchObject({
      code: 'FET-1060',
      message: 'Parquet: table "fidelity" of "src", column "num" (DECIMAL(38,10)): the value "NaN" is NaN, which DECIMAL cannot hold',
    });
    await expect(parquetPart(db.url, 'fidelity', ['id', 'd'])).rejects.toThrow(
      'column "d" (DATE): the value "infinity" is infinity, which a Parquet date or timestamp cannot hold',
    );
    await expect(parquetPart(db.url, 'fidelity', ['id', 'grid'])).rejects.toThrow(
      'column "grid" (LIST<INT32>): the value [[1,null],[3,4]] is a multi-dimensional array',
    );
  });
});

describe('Parquet from MariaDB: the fidelity table', () => {
  let db: TempMariaDatabase;

  beforeAll(async () => {
    db = await createTempMariaDatabase('parquet_fidelity');
    await db.query(MARIADB_FIDELITY_SQL);
    await db.query('UPDATE fidelity SET txt = ? WHERE id = 1', [FIDELITY_TEXT]);
  });

  afterAll(async () => {
    await db?.drop();
  });

  const COLUMNS = MARIADB_FIDELITY_COLUMNS;

  it('declares every column’s type from the catalog and keeps every value exactly', async () => {
    const url = `mysql://${db.user}@${db.host}:${db.port}/${db.name}`;
    const { types, rows } = await readBack(await parquetPart(url, 'fidelity', ['*']));
    expect(Object.keys(types)).toEqual(COLUMNS);
    expect(types).toEqual({
      id: 'INTEGER',
      ti: 'INTEGER',
      tiu: 'INTEGER',
      si: 'INTEGER',
      mi: 'INTEGER',
      i: 'INTEGER',
      iu: 'BIGINT',
      bi: 'BIGINT',
      bu: 'DECIMAL(20,0)',
      yr: 'INTEGER',
      flag: 'BOOLEAN',
      flag2: 'BOOLEAN',
      num: 'DECIMAL(38,10)',
      price: 'DECIMAL(10,2)',
      d: 'DOUBLE',
      f: 'FLOAT',
      dt: 'DATE',
      dtm: 'TIMESTAMP',
      dtm0: 'TIMESTAMP',
      ts: 'TIMESTAMP WITH TIME ZONE',
      t: 'VARCHAR',
      j: 'JSON',
      bin: 'BLOB',
      vb: 'BLOB',
      fixed: 'BLOB',
      b1: 'BOOLEAN',
      b8: 'INTEGER',
      b64: 'DECIMAL(20,0)',
      e: 'VARCHAR',
      st: 'VARCHAR',
      txt: 'VARCHAR',
      vc: 'VARCHAR',
      ch: 'VARCHAR',
      u: 'VARCHAR',
      g: 'VARCHAR',
    });
    expect(rows).toEqual(
      rowsOf(COLUMNS, [
        {
          id: '1',
          ti: '-128',
          tiu: '255',
          si: '-32768',
          mi: '16777215',
          i: '-2147483648',
          iu: '4294967295',
          bi: '9223372036854775807',
          bu: '18446744073709551615',
          yr: '2024',
          flag: 'true',
          flag2: 'false',
          num: '1234567890123456789012345678.0123456789',
          price: '100.50',
          d: '0.1',
          f: '0.1',
          dt: '2024-02-29',
          dtm: '2024-01-15 10:20:30.123456',
          dtm0: '2024-01-15 10:20:30',
          // Written at +02:00: the instant, in UTC.
          ts: '2024-01-15 08:20:30.123456+00',
          t: '-838:59:59.000000',
          j: '{"big":12345678901234567890,"s":"a b","n":[1,2.50]}',
          bin: 'AP8Q',
          vb: '/wA=',
          fixed: 'AQAAAA==',
          b1: 'true',
          b8: '129',
          b64: '18446744073709551615',
          e: 'happy',
          st: 'a,c',
          txt: FIDELITY_TEXT,
          vc: 'plain',
          ch: 'ab',
          u: '123e4567-e89b-12d3-a456-426655440000',
          g: 'POINT(1 2)',
        },
        {
          id: '2',
          bi: '-9223372036854775808',
          d: '1e+300',
          f: '1234567.0',
          flag: 'false',
          flag2: 'true',
          b1: 'false',
          t: '23:59:59.999999',
          price: '-0.05',
        },
        // Zero dates are null in the JSON, so here.
        { id: '3', d: '-2.5e-07', f: '3.40282e+38' },
      ]),
    );
  });
});
