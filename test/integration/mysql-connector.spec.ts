import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnInfo, ConnectorSession, RowFrame, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { allBatches, expectNdjsonLike, ndjsonFrame } from '../../src/engine/connectors/testing/row-frames.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import {
  FIDELITY_TEXT as TEXT,
  MARIADB_FIDELITY_COLUMNS as COLUMNS,
  MARIADB_FIDELITY_SQL as FIDELITY_SQL,
} from '../helpers/fidelity-tables.js';
import { resolvedMySqlDatasource, useTempMariaDatabase, withMariaAdmin } from '../helpers/mariadb-database.js';
import { collectBatches, expectClosesTwice } from '../../src/engine/connectors/testing/batch-reading.js';

/** The expected JSON text of one row, from [key, JSON text] pairs. */
const row = (pairs: [string, string][]): string => '{' + pairs.map(([k, v]) => JSON.stringify(k) + ':' + v).join(',') + '}';

/** A row where every column not given is NULL. */
const sparse = (given: Record<string, string>): string => row(COLUMNS.map((c) => [c, given[c] ?? 'null']));

describe('MySqlConnector against MariaDB', () => {
  const connector = new MySqlConnector();
  const db = useTempMariaDatabase('my_connector');
  let session: ConnectorSession;

  beforeAll(async () => {
    await db().query(FIDELITY_SQL);
    await db().query('UPDATE fidelity SET txt = ? WHERE id = 1', [TEXT]);
    await db().query(`
      CREATE TABLE \`Order Lines\` (line INT, \`select\` TEXT, \`Order\` INT, note TEXT, PRIMARY KEY (\`Order\`, line));
      CREATE TABLE plain (id INT);
      CREATE VIEW order_view AS SELECT \`Order\`, line FROM \`Order Lines\`;
      CREATE VIEW json_view AS SELECT id, j FROM fidelity;
      CREATE SEQUENCE seq_not_a_table;
      CREATE TABLE \`weird\`\`name\` (\`a.b\` INT PRIMARY KEY, \`Mixed Case\` TEXT, \`q?x\` VARCHAR(10));
      INSERT INTO \`weird\`\`name\` VALUES (2, 'two', 'x?'), (1, 'one', '?');
      CREATE TABLE unordered (k VARCHAR(5) PRIMARY KEY, v INT);
      INSERT INTO unordered VALUES ('m', 2), ('c', 1), ('z', 3), ('a', 0);
      CREATE TABLE dbl_key (k DOUBLE PRIMARY KEY);
      INSERT INTO dbl_key VALUES (10), (9), (100);
      CREATE TABLE heap (v INT);
      -- MariaDB's JSON alias by a table-level check, and a value slipped past it
      CREATE TABLE loose_json (id INT PRIMARY KEY, doc LONGTEXT, CONSTRAINT doc_is_json CHECK (json_valid(doc)));
      SET SESSION check_constraint_checks = 0;
      INSERT INTO loose_json VALUES (1, '[1, 2]'), (2, 'not json');
      SET SESSION check_constraint_checks = 1;
    `);
    session = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await session?.close();
  });

  const table = async (key: string): Promise<TableInfo> => {
    const info = (await session.discover(null, new AbortController().signal)).tables.get(key);
    if (info === undefined) throw new Error(`table ${key} not discovered`);
    return info;
  };

  const read = async (info: TableInfo, columns = info.columns) =>
    collectBatches(session.readRows({ table: info, columns }, new AbortController().signal));

  it('renders every MySQL/MariaDB type with full fidelity (docs/value-mapping.md)', async () => {
    const fidelity = await table('fidelity');
    expect(fidelity.columns.map((c) => c.name)).toEqual(COLUMNS);
    const { json, rowCount } = await read(fidelity);
    expect(rowCount).toBe(3);
    const expected = [
      sparse({
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
        num: '"1234567890123456789012345678.0123456789"',
        price: '"100.50"',
        d: '0.1',
        f: '0.1',
        dt: '"2024-02-29"',
        dtm: '"2024-01-15T10:20:30.123456"',
        dtm0: '"2024-01-15T10:20:30"',
        ts: '"2024-01-15T08:20:30.123456Z"',
        t: '"-838:59:59.000000"',
        j: '{"big":12345678901234567890,"s":"a b","n":[1,2.50]}',
        bin: '"AP8Q"',
        vb: '"/wA="',
        fixed: '"AQAAAA=="',
        b1: 'true',
        b8: '129',
        b64: '18446744073709551615',
        e: '"happy"',
        st: '"a,c"',
        txt: JSON.stringify(TEXT),
        vc: '"plain"',
        ch: '"ab"',
        u: '"123e4567-e89b-12d3-a456-426655440000"',
        g: '"POINT(1 2)"',
      }),
      sparse({
        id: '2',
        bi: '-9223372036854775808',
        d: '1e300',
        f: '1234567',
        flag: 'false',
        flag2: 'true',
        b1: 'false',
        t: '"23:59:59.999999"',
        price: '"-0.05"',
      }),
      // The server's own shortest text for the DOUBLE; zero dates have no ISO form: null.
      sparse({ id: '3', d: '-0.00000025', f: '3.40282e+38' }),
    ];
    // Raw text comparison: big integers and decimal digits are checked exactly, not through doubles.
    expect(json).toBe(expected.join(','));

    const parsed = JSON.parse('[' + json + ']') as Record<string, unknown>[];
    expect(parsed[0].txt).toBe(TEXT);
    expect(Buffer.from(parsed[0].bin as string, 'base64')).toEqual(Buffer.from([0x00, 0xff, 0x10]));
    expect(Object.keys(parsed[0])).toEqual(COLUMNS);
  });

  it('projects the requested columns in request order', async () => {
    const fidelity = await table('fidelity');
    const pick = (name: string) => fidelity.columns.find((c) => c.name === name)!;
    const { json } = await collectBatches(
      session.readRows(
        { table: fidelity, columns: [pick('d'), pick('bu'), pick('id'), pick('f')], filters: { id: { eq: [1] } } },
        new AbortController().signal,
      ),
    );
    expect(json).toBe('{"d":0.1,"bu":18446744073709551615,"id":1,"f":0.1}');
  });

  it('embeds JSON seen through a view, and keeps invalid text in a JSON-checked column a string', async () => {
    const view = await table('json_view');
    expect((await read(view)).json).toBe(
      '{"id":1,"j":{"big":12345678901234567890,"s":"a b","n":[1,2.50]}},{"id":2,"j":null},{"id":3,"j":null}',
    );
    const loose = await table('loose_json');
    expect((await read(loose)).json).toBe('{"id":1,"doc":[1,2]},{"id":2,"doc":"not json"}');
  });

  it('discovers tables and views of the connected database, columns in order and the PK in key order', async () => {
    const snapshot = await session.discover(['ignored', 'mysql'], new AbortController().signal);
    const keys = [...snapshot.tables.keys()].sort();
    expect(keys).toEqual(
      ['Order Lines', 'dbl_key', 'fidelity', 'heap', 'json_view', 'loose_json', 'order_view', 'plain', 'unordered', 'weird`name'].sort(),
    );

    const lines = snapshot.tables.get('Order Lines')!;
    expect(lines).toMatchObject({ schema: db().name, name: 'Order Lines', key: 'Order Lines' });
    expect(lines.columns.map((c) => c.name)).toEqual(['line', 'select', 'Order', 'note']);
    expect(lines.columns.map((c) => c.dataType)).toEqual(['int(11)', 'text', 'int(11)', 'text']);
    expect(lines.primaryKey).toEqual(['Order', 'line']);

    expect(snapshot.tables.get('order_view')!.primaryKey).toEqual([]);
    expect(snapshot.tables.get('order_view')!.columns.map((c) => c.name)).toEqual(['Order', 'line']);

    const fidelity = snapshot.tables.get('fidelity')!;
    const column = (name: string) => fidelity.columns.find((c) => c.name === name)!;
    expect(column('num').dataType).toBe('decimal(38,10)');
    expect(column('bu').dataType).toBe('bigint(20) unsigned');
    expect(column('bu').engineType).toEqual({ dataType: 'bigint', unsigned: true, kind: 'integer', castType: 'DECIMAL(65,30)' });
    expect(column('flag').engineType).toMatchObject({ kind: 'boolean' });
    expect(column('j').engineType).toMatchObject({ dataType: 'longtext', kind: 'json-checked' });
    expect(column('ts').engineType).toMatchObject({ kind: 'timestamp', castType: 'DATETIME(6)' });
    expect(JSON.parse(JSON.stringify(fidelity.columns))).toEqual(fidelity.columns);
  });

  it('never shows system databases, even when connected to one', async () => {
    const system = await connector.open(resolvedMySqlDatasource(db(), { databaseName: 'mysql' }), { connectTimeoutMs: 5_000 });
    try {
      expect((await system.discover(null, new AbortController().signal)).tables.size).toBe(0);
    } finally {
      await system.close();
    }
  });

  it('reads quoted, mixed-case and reserved identifiers, and names holding a question mark', async () => {
    const lines = await table('Order Lines');
    await db().query("INSERT INTO `Order Lines` VALUES (2, 'b', 1, 'n2'), (1, 'a', 2, 'n1'), (1, 'c', 1, NULL)");
    expect(JSON.parse('[' + (await read(lines)).json + ']')).toEqual([
      { line: 1, select: 'c', Order: 1, note: null },
      { line: 2, select: 'b', Order: 1, note: 'n2' },
      { line: 1, select: 'a', Order: 2, note: 'n1' },
    ]);

    const weird = await table('weird`name');
    expect((await read(weird)).json).toBe('{"a.b":1,"Mixed Case":"one","q?x":"?"},{"a.b":2,"Mixed Case":"two","q?x":"x?"}');
    const filtered = await collectBatches(
      session.readRows({ table: weird, columns: weird.columns, filters: { 'q?x': { eq: ['x?'] } } }, new AbortController().signal),
    );
    expect(filtered.json).toBe('{"a.b":2,"Mixed Case":"two","q?x":"x?"}');
  });

  it('returns rows in primary-key order even when inserted out of order', async () => {
    expect((await read(await table('unordered'))).json).toBe('{"k":"a","v":0},{"k":"c","v":1},{"k":"m","v":2},{"k":"z","v":3}');
    // Ordered by the DOUBLE key itself, not by its text projection ("10" < "100" < "9").
    expect((await read(await table('dbl_key'))).json).toBe('{"k":9},{"k":10},{"k":100}');
  });

  it("frames rows as the request asks: NDJSON lines holding the JSON frame read's rows, across batches", async () => {
    await db().query(String.raw`
      CREATE TABLE framed (id INT PRIMARY KEY, amount DECIMAL(12,1), note TEXT, doc JSON);
      INSERT INTO framed SELECT seq, seq * 1.5,
        CASE seq % 4 WHEN 0 THEN CONCAT('line\none "q" \\ \t', CHAR(1), seq) WHEN 1 THEN '' WHEN 2 THEN NULL ELSE REPEAT('é', seq % 300) END,
        IF(seq % 3 = 0, NULL, JSON_OBJECT('n', seq, 's', 'a\nb'))
        FROM seq_1_to_20000;
    `);
    const read = (info: TableInfo, rowFrame?: RowFrame, columns: readonly ColumnInfo[] = info.columns) =>
      allBatches(session.readRows({ table: info, columns, rowFrame }, new AbortController().signal));
    const framed = await table('framed');
    const ndjson = await read(framed, ndjsonFrame('maria', 'framed'));
    expect(ndjson.length).toBeGreaterThan(5);
    expectNdjsonLike(ndjson, await read(framed), 'maria', 'framed');
    expectNdjsonLike(await read(framed, ndjsonFrame('maria', 'framed'), []), await read(framed, undefined, []), 'maria', 'framed');
    const fidelity = await table('fidelity');
    expectNdjsonLike(await read(fidelity, ndjsonFrame('maria', 'fidelity')), await read(fidelity), 'maria', 'fidelity');
  });

  it('yields no batch for an empty table and can close twice', async () => {
    const heap = await table('heap');
    expect(await read(heap)).toEqual({ json: '', rowCount: 0, batches: 0 });

    await expectClosesTwice(await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 }));
  });

  it('reports a failing query as DatasourceQueryError naming the table, and stays usable', async () => {
    await db().query('CREATE TABLE doomed (v INT)');
    const doomed = await table('doomed');
    await db().query('DROP TABLE doomed');
    await expect(read(doomed)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      configName: 'mysql_test',
      table: 'doomed',
      message: expect.stringMatching(/doesn't exist \(ER_NO_SUCH_TABLE\)/),
    });
    await expect(read(await table('heap'))).resolves.toMatchObject({ rowCount: 0 });
  });

  it('fails cleanly, without hanging, when the server drops the connection', async () => {
    const threads = async (): Promise<Set<string>> =>
      withMariaAdmin(async (admin) => {
        const [rows] = await admin.query('SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ?', [db().name]);
        return new Set((rows as { ID: number | string }[]).map((r) => String(r.ID)));
      });
    const before = await threads();
    const doomed = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    const mine = [...(await threads())].filter((id) => !before.has(id));
    expect(mine).toHaveLength(1);
    const heap = await table('heap');
    await withMariaAdmin((admin) => admin.query(`KILL CONNECTION ${Number(mine[0])}`));
    await expect(
      collectBatches(doomed.readRows({ table: heap, columns: heap.columns }, new AbortController().signal)),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: 'heap',
    });
    await expect(doomed.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringMatching(/^Connection lost/),
    });
    await expect(doomed.close()).resolves.toBeUndefined();
  });
});
