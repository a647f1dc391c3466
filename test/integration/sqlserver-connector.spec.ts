import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FilterCondition } from '../../src/engine/request/data-request.js';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import type { SqlServerSession } from '../../src/engine/connectors/sqlserver/sqlserver-session.js';
import { SqlServerConnector } from '../../src/engine/connectors/sqlserver/sqlserver.connector.js';
import {
  describeWithSqlServer,
  resolvedSqlServerDatasource,
  withSqlServerAdmin,
  useTempSqlServerDatabase,
} from '../helpers/sqlserver-database.js';
import { collectBatches } from '../../src/engine/connectors/testing/batch-reading.js';

const TEXT = 'He said "hi" \\ back\nnew\tline \u0001 😀 ção ü';

const FIDELITY_TABLE = `CREATE TABLE dbo.fidelity (
  id int PRIMARY KEY,
  b bit, ti tinyint, si smallint, i int, bi bigint,
  dec decimal(38,10), num numeric(12,2), m money, sm smallmoney,
  f float, r real,
  d date, dt2 datetime2(7), dt2ms datetime2(3), dt datetime, sdt smalldatetime, dto datetimeoffset(7), t time(7), t0 time(0),
  u uniqueidentifier,
  vb varbinary(max), bin binary(4), img image,
  vc varchar(50), nvc nvarchar(max), ch char(5), nch nchar(3), txt text, ntxt ntext, x xml,
  v sql_variant, g geography, gm geometry, h hierarchyid,
  rv rowversion
)`;

const FIDELITY_ROWS = `
INSERT INTO dbo.fidelity (id, b, ti, si, i, bi, dec, num, m, sm, f, r, d, dt2, dt2ms, dt, sdt, dto, t, t0, u, vb, bin, img,
  vc, nvc, ch, nch, txt, ntxt, x, v, g, gm, h)
VALUES (1, 1, 255, -32768, -2147483648, 9223372036854775807,
  1234567890123456789012345678.0123456789, 100.50, 922337203685477.5807, -214748.3648,
  0.1, 0.1,
  '2024-02-29', '2024-01-15T10:20:30.1234567', '2024-01-15T10:20:30', '2024-01-15T10:20:30.997', '2024-01-15T10:21:00',
  '2024-01-15T10:20:30.1234567+05:30', '23:59:59.9999999', '08:00:00',
  '123E4567-E89B-12D3-A456-426655440000', 0x00FF10, 0x01, 0xFF,
  'plain', @text, 'ab', N'ç', 'old text', N'old ntext ção', N'<a b="1">x</a>',
  CAST(CAST('2024-01-15T10:20:30.1234567' AS datetime2(7)) AS sql_variant),
  geography::Point(47.65, -122.34, 4326), geometry::STGeomFromText('LINESTRING (0 0, 1 1)', 0), hierarchyid::Parse('/1/2/'));
INSERT INTO dbo.fidelity (id, bi, num, f, r, d, dt2, dto, v)
VALUES (2, -9223372036854775808, -0.05, 1e300, 3.40282e38, '0001-01-01', '9999-12-31T23:59:59.9999999', '0001-01-01T00:00:00-14:00',
  CAST(CAST(12.5 AS money) AS sql_variant));
INSERT INTO dbo.fidelity (id) VALUES (3);`;

/** Every column but the rowversion, whose value the server chooses. */
const COLUMNS = [
  'id',
  'b',
  'ti',
  'si',
  'i',
  'bi',
  'dec',
  'num',
  'm',
  'sm',
  'f',
  'r',
  'd',
  'dt2',
  'dt2ms',
  'dt',
  'sdt',
  'dto',
  't',
  't0',
  'u',
  'vb',
  'bin',
  'img',
  'vc',
  'nvc',
  'ch',
  'nch',
  'txt',
  'ntxt',
  'x',
  'v',
  'g',
  'gm',
  'h',
];
/** The expected JSON text of a row where every column not given is NULL. */
const sparse = (given: Record<string, string>): string =>
  '{' + COLUMNS.map((c) => JSON.stringify(c) + ':' + (given[c] ?? 'null')).join(',') + '}';

describeWithSqlServer('SqlServerConnector against SQL Server: values, filters, discovery', (target) => {
  const connector = new SqlServerConnector();
  const db = useTempSqlServerDatabase(target, 'connector');
  let session: SqlServerSession;

  beforeAll(async () => {
    await db().run(
      FIDELITY_TABLE,
      'CREATE SCHEMA [Sales Dept]',
      `CREATE TABLE [Sales Dept].[Order] ([select] int NOT NULL, [Line No] int NOT NULL, [From] nvarchar(10) NULL,
         CONSTRAINT [PK Order] PRIMARY KEY ([Line No], [select]))`,
      'CREATE VIEW [Sales Dept].[OrderView] AS SELECT [From], [select] FROM [Sales Dept].[Order]',
      'CREATE TYPE dbo.Phone FROM varchar(20) NOT NULL',
      'CREATE TABLE dbo.db_users (id int PRIMARY KEY, phone dbo.Phone)',
      `CREATE TABLE dbo.[weird]]name] ([a.b] int PRIMARY KEY, [Mixed Case] nvarchar(10), [q?x] varchar(10))`,
      'CREATE TABLE dbo.unordered (k varchar(5) PRIMARY KEY, v int)',
      'CREATE TABLE dbo.dec_key (k decimal(10,2) PRIMARY KEY)',
      'CREATE TABLE dbo.heap (v int)',
    );
    await db().query(FIDELITY_ROWS, { text: TEXT });
    await db().run(
      `INSERT INTO [Sales Dept].[Order] VALUES (2, 1, N'b'), (1, 2, N'a'), (1, 1, NULL)`,
      `INSERT INTO dbo.[weird]]name] VALUES (2, N'two', 'x?'), (1, N'one', '?')`,
      `INSERT INTO dbo.unordered VALUES ('m', 2), ('c', 1), ('z', 3), ('a', 0)`,
      'INSERT INTO dbo.dec_key VALUES (10), (9), (100)',
    );
    session = (await connector.open(resolvedSqlServerDatasource(db()), { connectTimeoutMs: 15_000 })) as SqlServerSession;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  const table = async (key: string, schemas: readonly string[] | null = null): Promise<TableInfo> => {
    const info = (await session.discover(schemas, new AbortController().signal)).tables.get(key);
    if (info === undefined) throw new Error(`table ${key} not discovered`);
    return info;
  };
  const read = async (info: TableInfo, columns = info.columns) =>
    collectBatches(session.readRows({ table: info, columns }, new AbortController().signal));

  const readSmall = async (s: ConnectorSession = session) => {
    const unordered = await table('unordered');
    return (await collectBatches(s.readRows({ table: unordered, columns: unordered.columns }, new AbortController().signal))).rowCount;
  };

  it('renders every SQL Server type with full fidelity (docs/value-mapping.md)', async () => {
    const fidelity = await table('fidelity');
    const columns = fidelity.columns.filter((c) => c.name !== 'rv');
    expect(columns.map((c) => c.name)).toEqual(COLUMNS);
    const { json, rowCount } = await read(fidelity, columns);
    expect(rowCount).toBe(3);
    const expected = [
      sparse({
        id: '1',
        b: 'true',
        ti: '255',
        si: '-32768',
        i: '-2147483648',
        bi: '9223372036854775807',
        dec: '"1234567890123456789012345678.0123456789"',
        num: '"100.50"',
        m: '"922337203685477.5807"',
        sm: '"-214748.3648"',
        f: '0.1',
        r: '0.1',
        d: '"2024-02-29"',
        dt2: '"2024-01-15T10:20:30.1234567"',
        dt2ms: '"2024-01-15T10:20:30.000"',
        dt: '"2024-01-15T10:20:30.997"',
        sdt: '"2024-01-15T10:21:00"',
        dto: '"2024-01-15T10:20:30.1234567+05:30"',
        t: '"23:59:59.9999999"',
        t0: '"08:00:00"',
        u: '"123e4567-e89b-12d3-a456-426655440000"',
        vb: '"AP8Q"',
        bin: '"AQAAAA=="',
        img: '"/w=="',
        vc: '"plain"',
        nvc: JSON.stringify(TEXT),
        ch: '"ab   "',
        nch: '"ç  "',
        txt: '"old text"',
        ntxt: '"old ntext ção"',
        x: '"<a b=\\"1\\">x</a>"',
        v: '"2024-01-15 10:20:30.1234567"',
        g: '"POINT (-122.34 47.65)"',
        gm: '"LINESTRING (0 0, 1 1)"',
        h: '"/1/2/"',
      }),
      sparse({
        id: '2',
        bi: '-9223372036854775808',
        num: '"-0.05"',
        f: '1e+300',
        r: '3.40282e+38',
        d: '"0001-01-01"',
        dt2: '"9999-12-31T23:59:59.9999999"',
        dto: '"0001-01-01T00:00:00.0000000-14:00"',
        v: '"12.5000"',
      }),
      sparse({ id: '3' }),
    ];
    // Raw text comparison: big integers and decimal digits are checked exactly, not through doubles.
    expect(json).toBe(expected.join(','));
    const parsed = JSON.parse('[' + json + ']') as Record<string, unknown>[];
    expect(parsed[0].nvc).toBe(TEXT);

    const rowversion = await read(fidelity, [fidelity.columns.find((c) => c.name === 'rv')!]);
    const values = (JSON.parse('[' + rowversion.json + ']') as { rv: string }[]).map((r) => Buffer.from(r.rv, 'base64'));
    expect(values.map((v) => v.length)).toEqual([8, 8, 8]);
  });

  it('filters with the column types: dates as dates, decimals exactly, bits, guids, binaries as base64', async () => {
    const fidelity = await table('fidelity');
    const ids = async (filters: Record<string, FilterCondition>) => {
      const { json } = await collectBatches(
        session.readRows({ table: fidelity, columns: [fidelity.columns[0]], filters }, new AbortController().signal),
      );
      return (JSON.parse('[' + json + ']') as { id: number }[]).map((r) => r.id);
    };
    expect(await ids({ dt2: { gte: ['2024-01-15'] } })).toEqual([1, 2]);
    expect(await ids({ dt2: { lt: ['2024-01-15T10:20:30.1234568'] } })).toEqual([1]);
    expect(await ids({ dto: { eq: ['2024-01-15T04:50:30.1234567Z'] } })).toEqual([1]);
    expect(await ids({ bi: { eq: ['9223372036854775807'] } })).toEqual([1]);
    expect(await ids({ num: { lt: [0] } })).toEqual([2]);
    expect(await ids({ b: { eq: [true] } })).toEqual([1]);
    expect(await ids({ u: { eq: ['123e4567-e89b-12d3-a456-426655440000'] } })).toEqual([1]);
    expect(await ids({ vb: { eq: ['AP8Q'] } })).toEqual([1]);
    expect(await ids({ x: { like: ['%b="1"%'] } })).toEqual([1]);
    expect(await ids({ d: { like: ['2024-%'] } })).toEqual([1]);
    expect(await ids({ vc: { like: ['[p]%'] } })).toEqual([]);
  });

  it('discovers tables and views of the named schemas, columns in order and the PK in key order', async () => {
    const both = await session.discover(['dbo', 'Sales Dept'], new AbortController().signal);
    expect([...both.tables.keys()].sort()).toEqual(
      ['Sales Dept.Order', 'Sales Dept.OrderView', 'db_users', 'dec_key', 'fidelity', 'heap', 'unordered', 'weird]name'].sort(),
    );
    const order = both.tables.get('Sales Dept.Order')!;
    expect(order).toMatchObject({ schema: 'Sales Dept', name: 'Order', primaryKey: ['Line No', 'select'] });
    expect(order.columns.map((c) => [c.name, c.dataType])).toEqual([
      ['select', 'int'],
      ['Line No', 'int'],
      ['From', 'nvarchar(10)'],
    ]);
    expect(both.tables.get('Sales Dept.OrderView')!.primaryKey).toEqual([]);
    expect(both.tables.get('db_users')!.columns.map((c) => [c.dataType, (c.engineType as { typeName: string }).typeName])).toEqual([
      ['int', 'int'],
      ['Phone', 'varchar'],
    ]);

    const sales = await session.discover(['Sales Dept'], new AbortController().signal);
    expect([...sales.tables.keys()].sort()).toEqual(['Sales Dept.Order', 'Sales Dept.OrderView']);
    const all = await session.discover(null, new AbortController().signal);
    expect([...all.tables.keys()].sort()).toEqual([...both.tables.keys()].sort());
    expect([...(await session.discover([], new AbortController().signal)).tables.keys()]).not.toContain('Sales Dept.Order');

    const fidelity = both.tables.get('fidelity')!;
    const type = (name: string) => fidelity.columns.find((c) => c.name === name)!;
    expect(type('dec').dataType).toBe('decimal(38,10)');
    expect(type('dt2ms').dataType).toBe('datetime2(3)');
    expect(type('nvc').dataType).toBe('nvarchar(max)');
    expect(type('g').engineType).toMatchObject({ kind: 'clr', typeName: 'geography' });
    expect(JSON.parse(JSON.stringify(fidelity.columns))).toEqual(fidelity.columns);
  });

  it('never shows system schemas, even when asked for them', async () => {
    const snapshot = await session.discover(['sys', 'INFORMATION_SCHEMA', 'db_owner'], new AbortController().signal);
    expect(snapshot.tables.size).toBe(0);
  });

  it('reads quoted, mixed-case and reserved identifiers, and keeps rows in primary-key order', async () => {
    expect(JSON.parse('[' + (await read(await table('Sales Dept.Order'))).json + ']')).toEqual([
      { select: 1, 'Line No': 1, From: null },
      { select: 2, 'Line No': 1, From: 'b' },
      { select: 1, 'Line No': 2, From: 'a' },
    ]);
    const weird = await table('weird]name');
    expect((await read(weird)).json).toBe('{"a.b":1,"Mixed Case":"one","q?x":"?"},{"a.b":2,"Mixed Case":"two","q?x":"x?"}');
    expect(
      (
        await collectBatches(
          session.readRows({ table: weird, columns: weird.columns, filters: { 'q?x': { eq: ['x?'] } } }, new AbortController().signal),
        )
      ).json,
    ).toBe('{"a.b":2,"Mixed Case":"two","q?x":"x?"}');
    expect((await read(await table('unordered'))).json).toBe('{"k":"a","v":0},{"k":"c","v":1},{"k":"m","v":2},{"k":"z","v":3}');
    // Ordered by the decimal key itself, not by its text projection ("10.00" < "100.00" < "9.00").
    expect((await read(await table('dec_key'))).json).toBe('{"k":"9.00"},{"k":"10.00"},{"k":"100.00"}');
    expect(await read(await table('heap'))).toEqual({ json: '', rowCount: 0, batches: 0 });
  });

  it('reports a failing query as DatasourceQueryError naming the table, and stays usable', async () => {
    await db().query('CREATE TABLE dbo.doomed (v int)');
    const doomed = await table('doomed');
    await db().query('DROP TABLE dbo.doomed');
    await expect(read(doomed)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      configName: 'mssql_test',
      table: 'doomed',
      message: expect.stringMatching(/Invalid object name 'dbo\.doomed'\. \(error 208\)/),
    });
    expect(await readSmall()).toBe(4);
  });

  it('fails cleanly, without hanging, when the server kills the session', async () => {
    const doomed = (await connector.open(resolvedSqlServerDatasource(db()), { connectTimeoutMs: 15_000 })) as SqlServerSession;
    await withSqlServerAdmin(target, (admin) => admin.request().query(`KILL ${Number(doomed.spid)}`));
    const heap = await table('heap');
    await expect(
      collectBatches(doomed.readRows({ table: heap, columns: heap.columns }, new AbortController().signal)),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
    });
    await expect(doomed.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringMatching(/^Connection lost/),
    });
    await expect(doomed.close()).resolves.toBeUndefined();
    await expect(doomed.close()).resolves.toBeUndefined();
  });
});
