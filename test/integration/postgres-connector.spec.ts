import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnInfo, ConnectorSession, RowFrame, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { allBatches, expectNdjsonLike, ndjsonFrame } from '../../src/engine/connectors/testing/row-frames.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { FIDELITY_TEXT as TEXT, PG_FIDELITY_SQL as FIDELITY_SQL } from '../helpers/fidelity-tables.js';
import { PG_READ_PATHS, resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';
import { collectBatches } from '../../src/engine/connectors/testing/batch-reading.js';

/** The expected JSON text of one row, from [key, JSON text] pairs. */
const row = (pairs: [string, string][]): string => '{' + pairs.map(([k, v]) => JSON.stringify(k) + ':' + v).join(',') + '}';

const NULLS = (names: string[]): [string, string][] => names.map((n) => [n, 'null']);

describe.each(PG_READ_PATHS)('PostgresConnector against PostgreSQL (%s path)', (readPath) => {
  const connector = new PostgresConnector(readPath);
  const db = useTempDatabase('pg_connector');
  let session: ConnectorSession;

  beforeAll(async () => {
    await db().query(FIDELITY_SQL);
    await db().query(`
      CREATE SCHEMA "Sales";
      CREATE TABLE "Sales"."OrderLines" (line int, "select" text, "Order" int, gone int, note text, PRIMARY KEY ("Order", line));
      ALTER TABLE "Sales"."OrderLines" DROP COLUMN gone;
      CREATE TABLE "Sales".plain (id int);
      CREATE VIEW public.order_view AS SELECT "Order", line FROM "Sales"."OrderLines";
      CREATE MATERIALIZED VIEW "Sales".totals AS SELECT 1 AS total;
      CREATE TABLE public.events (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
      CREATE TABLE public."weird ""name""" ("a.b" int PRIMARY KEY, "Mixed Case" text);
      INSERT INTO public."weird ""name""" VALUES (2, 'two'), (1, 'one');
      CREATE TABLE public.unordered (k text PRIMARY KEY, v int);
      INSERT INTO public.unordered VALUES ('m', 2), ('c', 1), ('z', 3), ('a', 0);
      CREATE TABLE public.heap (v int);
    `);
    session = await connector.open(resolvedDatasource(db()), { connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await session?.close();
  });

  const table = async (key: string, schemas = ['public']): Promise<TableInfo> => {
    const info = (await session.discover(schemas, new AbortController().signal)).tables.get(key);
    if (info === undefined) throw new Error(`table ${key} not discovered`);
    return info;
  };

  it('renders every PostgreSQL type with full fidelity (docs/value-mapping.md)', async () => {
    const fidelity = await table('fidelity');
    const { json, rowCount } = await collectBatches(
      session.readRows({ table: fidelity, columns: fidelity.columns }, new AbortController().signal),
    );
    expect(rowCount).toBe(4);

    const arrayCols = ['ints', 'texts', 'nums', 'grid', 'tstzs', 'flags', 'jbs'];
    const expected = [
      row([
        ['id', '1'],
        ['i2', '32767'],
        ['i4', '-2147483648'],
        ['i8', '9007199254740993'],
        ['num', '"1234567890123456789012345678.0123456789"'],
        ['cash', '"12.50"'],
        ['amt', '"100.50"'],
        ['f4', '1.5'],
        ['f8', '0.1'],
        ['flag', 'true'],
        ['d', '"2024-02-29"'],
        ['ts', '"2024-01-15T10:20:30.123456"'],
        ['tstz', '"2024-01-15T08:20:30.123456Z"'],
        ['t', '"23:59:59.999999"'],
        ['ttz', '"10:20:30.5+05:30"'],
        ['iv', '"P1Y2M3DT4H5M6S"'],
        ['u', '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"'],
        ['j', '{"big":12345678901234567890,"s":"a b","n":[1,2]}'],
        ['jb', '{"n":[1,2],"s":"a b","big":12345678901234567890}'],
        ['bin', '"AP8Q"'],
        ['ints', '[1,null,3]'],
        ['texts', '["a,b","c\\"d",null,"NULL",""]'],
        ['nums', '["1.50",null,"NaN"]'],
        ['grid', '[[1,null],[3,4]]'],
        ['tstzs', '["2024-01-15T10:20:30Z",null]'],
        ['flags', '[true,false,null]'],
        ['jbs', '[{"k":[1,2]}]'],
        ['txt', JSON.stringify(TEXT)],
        ['fixed', '"ab   "'],
        ['m', '"happy"'],
        ['addr', '"192.168.0.1/24"'],
      ]),
      row([
        ['id', '2'],
        ...NULLS(['i2', 'i4']),
        ['i8', '-9223372036854775808'],
        ['num', '"NaN"'],
        ...NULLS(['cash', 'amt']),
        ['f4', '"NaN"'],
        ['f8', '"Infinity"'],
        ['flag', 'false'],
        ['d', '"infinity"'],
        ['ts', '"-infinity"'],
        ['tstz', '"infinity"'],
        ['t', 'null'],
        ['ttz', '"08:00:00+02:00"'],
        ['iv', '"P-1D"'],
        ...NULLS(['u', 'j', 'jb', 'bin', ...arrayCols, 'txt', 'fixed', 'm', 'addr']),
      ]),
      row([
        ['id', '3'],
        ...NULLS(['i2', 'i4', 'i8', 'num', 'cash', 'amt']),
        ['f4', '3.4028235e+38'],
        ['f8', '"-Infinity"'],
        ...NULLS(['flag', 'd', 'ts', 'tstz', 't', 'ttz', 'iv', 'u', 'j', 'jb', 'bin', ...arrayCols, 'txt', 'fixed', 'm', 'addr']),
      ]),
      row([
        ['id', '4'],
        ...NULLS(['i2', 'i4', 'i8', 'num', 'cash', 'amt', 'f4']),
        ['f8', '1e+300'],
        ...NULLS(['flag', 'd', 'ts', 'tstz', 't', 'ttz', 'iv', 'u', 'j', 'jb', 'bin', ...arrayCols, 'txt', 'fixed', 'm', 'addr']),
      ]),
    ];
    // Raw text comparison: big integers and numeric digits are checked exactly, not through doubles.
    expect(json).toBe(expected.join(','));

    // Structure check: valid JSON, strings decode to the original text.
    const parsed = JSON.parse('[' + json + ']') as Record<string, unknown>[];
    expect(parsed[0].txt).toBe(TEXT);
    expect(Buffer.from(parsed[0].bin as string, 'base64')).toEqual(Buffer.from([0x00, 0xff, 0x10]));
    expect(Object.keys(parsed[0])).toEqual(fidelity.columns.map((c) => c.name));
  });

  it('projects the requested columns in request order, money keeping its own key', async () => {
    const fidelity = await table('fidelity');
    const pick = (name: string) => fidelity.columns.find((c) => c.name === name)!;
    const { json } = await collectBatches(
      session.readRows(
        { table: fidelity, columns: [pick('cash'), pick('i8'), pick('id')], filters: { id: { eq: [1] } } },
        new AbortController().signal,
      ),
    );
    expect(json).toBe('{"cash":"12.50","i8":9007199254740993,"id":1}');
  });

  it('discovers tables, views and partitioned tables with columns in order and the PK in key order', async () => {
    const snapshot = await session.discover(['public', 'Sales', 'pg_catalog', 'information_schema'], new AbortController().signal);
    const keys = [...snapshot.tables.keys()].sort();
    expect(keys).toEqual(
      ['Sales.OrderLines', 'Sales.plain', 'Sales.totals', 'events', 'fidelity', 'heap', 'order_view', 'unordered', 'weird "name"'].sort(),
    );
    expect(keys.some((k) => k.startsWith('pg_') || k.includes('information_schema'))).toBe(false);

    const lines = snapshot.tables.get('Sales.OrderLines')!;
    expect(lines.schema).toBe('Sales');
    expect(lines.name).toBe('OrderLines');
    expect(lines.columns.map((c) => c.name)).toEqual(['line', 'select', 'Order', 'note']);
    expect(lines.primaryKey).toEqual(['Order', 'line']);
    expect(lines.columns.map((c) => c.dataType)).toEqual(['integer', 'text', 'integer', 'text']);

    expect(snapshot.tables.get('order_view')!.primaryKey).toEqual([]);
    expect(snapshot.tables.get('order_view')!.columns.map((c) => c.name)).toEqual(['Order', 'line']);
    expect(snapshot.tables.get('events')!.primaryKey).toEqual(['id', 'at']);

    const fidelity = snapshot.tables.get('fidelity')!;
    const dataType = (name: string) => fidelity.columns.find((c) => c.name === name)!.dataType;
    expect(dataType('num')).toBe('numeric(38,10)');
    expect(dataType('tstz')).toBe('timestamp with time zone');
    expect(dataType('grid')).toBe('integer[]');
    expect(dataType('amt')).toBe('amount');
  });

  it('uses the configured default schema for bare keys', async () => {
    const other = await connector.open(resolvedDatasource(db(), { schemaName: 'Sales' }), { connectTimeoutMs: 5_000 });
    try {
      const keys = [...(await other.discover(['Sales', 'public'], new AbortController().signal)).tables.keys()];
      expect(keys).toContain('OrderLines');
      expect(keys).toContain('public.fidelity');
    } finally {
      await other.close();
    }
  });

  it('reads quoted, mixed-case and reserved identifiers', async () => {
    const lines = await table('Sales.OrderLines', ['Sales']);
    await db().query(`INSERT INTO "Sales"."OrderLines" VALUES (2, 'b', 1, 'n2'), (1, 'a', 2, 'n1'), (1, 'c', 1, NULL)`);
    const { json } = await collectBatches(session.readRows({ table: lines, columns: lines.columns }, new AbortController().signal));
    expect(JSON.parse('[' + json + ']')).toEqual([
      { line: 1, select: 'c', Order: 1, note: null },
      { line: 2, select: 'b', Order: 1, note: 'n2' },
      { line: 1, select: 'a', Order: 2, note: 'n1' },
    ]);

    const weird = await table('weird "name"');
    const result = await collectBatches(session.readRows({ table: weird, columns: weird.columns }, new AbortController().signal));
    expect(result.json).toBe('{"a.b":1,"Mixed Case":"one"},{"a.b":2,"Mixed Case":"two"}');
  });

  it('returns rows in primary-key order even when inserted out of order', async () => {
    const unordered = await table('unordered');
    const { json } = await collectBatches(session.readRows({ table: unordered, columns: unordered.columns }, new AbortController().signal));
    expect(json).toBe('{"k":"a","v":0},{"k":"c","v":1},{"k":"m","v":2},{"k":"z","v":3}');
  });

  it("frames rows as the request asks: NDJSON lines holding the JSON frame read's rows, across batches", async () => {
    await db().query(String.raw`
      CREATE TABLE framed AS SELECT g AS id, g * 1.5 AS amount,
        CASE g % 4 WHEN 0 THEN E'line\none "q" \\ \t\u0001' || g WHEN 1 THEN '' WHEN 2 THEN NULL ELSE repeat('é', g % 300) END AS note
        FROM generate_series(1, 20000) g;
      ALTER TABLE framed ADD PRIMARY KEY (id);
    `);
    const read = (info: TableInfo, rowFrame?: RowFrame, columns: readonly ColumnInfo[] = info.columns) =>
      allBatches(session.readRows({ table: info, columns, rowFrame }, new AbortController().signal));
    const framed = await table('framed');
    const ndjson = await read(framed, ndjsonFrame('pg', 'framed'));
    expect(ndjson.length).toBeGreaterThan(5);
    expectNdjsonLike(ndjson, await read(framed), 'pg', 'framed');
    expectNdjsonLike(await read(framed, ndjsonFrame('pg', 'framed'), []), await read(framed, undefined, []), 'pg', 'framed');
    const fidelity = await table('fidelity');
    expectNdjsonLike(await read(fidelity, ndjsonFrame('pg', 'fidelity')), await read(fidelity), 'pg', 'fidelity');
  });

  it('yields no batch for an empty table and can close twice', async () => {
    const heap = await table('heap');
    const result = await collectBatches(session.readRows({ table: heap, columns: heap.columns }, new AbortController().signal));
    expect(result).toEqual({ json: '', rowCount: 0, batches: 0 });

    const extra = await connector.open(resolvedDatasource(db()), { connectTimeoutMs: 5_000 });
    await extra.close();
    await expect(extra.close()).resolves.toBeUndefined();
  });

  it('reports a failing query as DatasourceQueryError naming the table, and stays usable', async () => {
    const heap = await table('heap');
    await db().query('CREATE TABLE public.doomed (v int)');
    const doomed = await table('doomed');
    await db().query('DROP TABLE public.doomed');
    await expect(
      collectBatches(session.readRows({ table: doomed, columns: doomed.columns }, new AbortController().signal)),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: 'doomed',
      message: expect.stringContaining('does not exist'),
    });
    await expect(
      collectBatches(session.readRows({ table: heap, columns: heap.columns }, new AbortController().signal)),
    ).resolves.toMatchObject({
      rowCount: 0,
    });
  });
});
