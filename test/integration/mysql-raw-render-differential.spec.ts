import type { Connection } from 'mysql2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnInfo, ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { connectionOptions, connectMySql, endConnection, runQuery } from '../../src/engine/connectors/mysql/mysql-client.js';
import { quoteIdent } from '../../src/engine/connectors/mysql/mysql-identifier.js';
import { RenderedRowCollector } from '../../src/engine/connectors/mysql/mysql-rendered-rows.js';
import { MySqlRowStream } from '../../src/engine/connectors/mysql/mysql-row-stream.js';
import { buildSelect, renderSql } from '../../src/engine/connectors/mysql/mysql-sql.js';
import type { MySqlColumnType, MySqlValueKind } from '../../src/engine/connectors/mysql/mysql-types.js';
import { createBatchRenderer, kindsForResult, type RawRow } from '../../src/engine/connectors/mysql/mysql-value-encoders.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { DEFAULT_READ_BUDGET, type ReadBudget } from '../../src/engine/connectors/shared/read-budget.js';
import { resolvedMySqlDatasource, useTempMariaDatabase } from '../helpers/mariadb-database.js';

/**
 * The raw renderer (bytes of the row packets → JSON) against the parsed-row renderer it replaces
 * (mysql2's values → createBatchRenderer), on the same statements: the bytes must be identical.
 */

// sql_mode '' so zero and partly-zero dates can be stored; check_constraint_checks 0 lets an
// invalid document into a JSON-checked column.
const EDGE_SQL = String.raw`
  SET SESSION sql_mode = '';
  CREATE TABLE edge (
    id INT PRIMARY KEY,
    ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
    i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, yr YEAR, izf INT(8) ZEROFILL, bzf BIGINT(20) ZEROFILL,
    flag TINYINT(1), flagu TINYINT(1) UNSIGNED,
    num DECIMAL(65,30), price NUMERIC(10,2), dz DECIMAL(5,0) UNSIGNED,
    d DOUBLE, f FLOAT, r REAL,
    dt DATE, dtm DATETIME(6), dtm0 DATETIME, ts TIMESTAMP(6) NULL, ts0 TIMESTAMP NULL, t TIME(6), t0 TIME,
    j JSON, bin BLOB, vb VARBINARY(64), fixed BINARY(4), lb LONGBLOB,
    b1 BIT(1), b7 BIT(7), b64 BIT(64),
    e ENUM('happy', 'sad', ''), st SET('a', 'b', 'c'),
    txt TEXT, vc VARCHAR(255), ch CHAR(5), lt LONGTEXT, tt TINYTEXT,
    lat VARCHAR(50) CHARACTER SET latin1, asc7 VARCHAR(50) CHARACTER SET ascii, ucs VARCHAR(20) CHARACTER SET ucs2,
    u8 VARCHAR(50) CHARACTER SET utf8mb3,
    u UUID, i4 INET4, i6 INET6, g POINT, geo GEOMETRY
  );
  INSERT INTO edge (id) VALUES (1);
  INSERT INTO edge VALUES (
    2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
    9223372036854775807, 18446744073709551615, 2155, 42, 42, 1, 2,
    '99999999999999999999999999999999999.999999999999999999999999999999', 99999999.99, 99999,
    1.7976931348623157e308, 3.40282e38, 5e-324,
    '9999-12-31', '9999-12-31 23:59:59.999999', '2024-01-15 10:20:30', '2038-01-19 03:14:07.999999', '1970-01-01 00:00:01',
    '838:59:59.000000', '-838:59:59',
    '{"big": 12345678901234567890, "s": "a b" ,\n "n":[1, 2.50], "esc": "q\\"\\\\ \\u00e9", "é": "😀"}',
    x'00ff10', x'', x'01', REPEAT(x'00ff7f', 100000),
    b'1', b'1111111', b'1111111111111111111111111111111111111111111111111111111111111111',
    'sad', 'a,b,c',
    NULL, '', 'ab', REPEAT('x', 100000), '"\\',
    'çà ÿ', 'plain ascii', 'ça€', 'é€ utf8mb3',
    '123e4567-e89b-12d3-a456-426655440000', '192.168.0.1', '::1', POINT(1, 2), LINESTRING(POINT(0, 0), POINT(1.5, -2))
  );
  INSERT INTO edge VALUES (
    3, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0,
    -9223372036854775808, 0, 0, 0, 0, 0, 0,
    '-0.000000000000000000000000000001', -0.05, 0,
    -0e0, -1.17549e-38, 2.2250738585072014e-308,
    '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', NULL,
    '-00:00:00.000001', '00:00:00',
    '[]', x'', x'00', x'00000000', x'',
    b'0', b'0', b'0',
    '', '',
    '', ' ', '', REPEAT('é', 40000), '😀',
    '', '', '', '',
    '00000000-0000-0000-0000-000000000000', '0.0.0.0', 'ffff::ffff', POINT(-0.5, 1e10), POINT(0, 0)
  );
  INSERT INTO edge (id, yr, dt, dtm, dtm0, t, j, txt, lt, d, f, num, bi, izf)
    VALUES (4, 1901, '2024-00-15', '2024-02-00 10:00:00.5', '2024-00-00 00:00:00', '12:34:56.7',
      '"just a string"', REPEAT('é😀', 10000), REPEAT('a"b\\c\n\t', 200000), 0.1, 0.1, '0.000000000000000000000000000000', 1, 7);
  INSERT INTO edge (id, j, txt, vc, d, f)
    VALUES (5, ' {  "deep" : [ [ [ ] ] ] , "x":"\\u0000" } ', 'It''s a "test"', 'tab\there', 1e300, 1234567);
  CREATE VIEW edge_view AS SELECT id,
    CONVERT(_binary x'eda080' USING utf8mb4) AS bad_utf8, CONVERT(_binary x'41eda08042' USING utf8mb4) AS bad_inside,
    NULL AS nothing, CAST(id AS DOUBLE) / 3 AS third, j AS jv, txt AS tv, lb AS lbv, CONCAT(vc, '|', ch) AS joined
  FROM edge;
  CREATE TABLE loose_json (id INT PRIMARY KEY, doc LONGTEXT, CONSTRAINT doc_is_json CHECK (json_valid(doc)));
  SET SESSION check_constraint_checks = 0;
  INSERT INTO loose_json VALUES (1, '[1, 2]'), (2, 'not json'), (3, ' { "a" : "b c" } '), (4, ''), (5, NULL);
  SET SESSION check_constraint_checks = 1, sql_mode = DEFAULT;
`;

/** Control characters, DEL, separators and 4-byte UTF-8 in one value, set with a parameter. */
const SPECIAL_TEXT = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join('') + '\u007f"\\/ \u2028\u2029 😀é€ ok';

const MANY_ROWS = 5_000;
const MANY_SQL = `
  CREATE TABLE many (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(12,2), qty INT, active TINYINT(1),
    at DATETIME(6), note VARCHAR(64) NULL, b BIGINT, ts TIMESTAMP NULL);
  INSERT INTO many SELECT seq, CONCAT('name-', seq, IF(seq % 7 = 0, ' é"\\\\', '')), (seq % 100000) / 100, CAST(seq % 1000 AS SIGNED) - 500,
    seq % 2 = 0, TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq * 1000123 MICROSECOND,
    IF(seq % 10 = 0, NULL, CONCAT('note "', seq, '" with \\\\ backslash')), seq * 1000000007,
    IF(seq % 3 = 0, NULL, TIMESTAMP '2001-02-03 04:05:06' + INTERVAL seq SECOND)
  FROM seq_1_to_${MANY_ROWS};
`;

const KINDS: readonly MySqlValueKind[] = [
  'integer',
  'boolean',
  'decimal',
  'float',
  'double',
  'date',
  'datetime',
  'timestamp',
  'time',
  'bit-boolean',
  'bit',
  'json',
  'json-checked',
  'binary',
  'text',
  'spatial',
  'other',
];

const joined = (chunks: readonly RowBatch[]): { json: Buffer; rows: number } => ({
  json: Buffer.concat(chunks.flatMap((c, i) => (i === 0 ? [c.json] : [Buffer.from(','), c.json]))),
  rows: chunks.reduce((n, c) => n + c.rowCount, 0),
});

/** Today's path: mysql2 parses the rows, the value encoders render them. */
async function renderParsed(connection: Connection, sql: string, columns: readonly ColumnInfo[], budget: ReadBudget) {
  const stream = new MySqlRowStream(connection, sql, budget, 't');
  const rows: RawRow[] = [];
  for (let batch = await stream.next(); batch.length > 0; batch = await stream.next()) rows.push(...batch);
  return joined(createBatchRenderer(columns, kindsForResult(columns, stream.resultFields))(rows));
}

/** The raw path, as the session reads. */
async function renderRaw(connection: Connection, sql: string, columns: readonly ColumnInfo[], budget: ReadBudget) {
  const collector = new RenderedRowCollector(columns, budget, 't');
  const stream = new MySqlRowStream(connection, sql, budget, 't', collector);
  const chunks: RowBatch[] = [];
  for (let batch = await stream.next(); batch.length > 0; batch = await stream.next()) chunks.push(...batch.chunks);
  expect(collector.readsRaw).toBe(true);
  return joined(chunks);
}

/** Where two renderings first differ, with context, or undefined when they are the same bytes. */
function difference(raw: Buffer, parsed: Buffer): string | undefined {
  if (raw.equals(parsed)) return undefined;
  let at = 0;
  while (at < raw.length && at < parsed.length && raw[at] === parsed[at]) at++;
  const around = (b: Buffer) => JSON.stringify(b.toString('utf8', Math.max(0, at - 80), at + 80));
  return `first difference at byte ${at} (raw ${raw.length} bytes, parsed ${parsed.length}):\n raw    ${around(raw)}\n parsed ${around(parsed)}`;
}

const withKind = (column: ColumnInfo, kind: MySqlValueKind): ColumnInfo => ({
  ...column,
  engineType: { ...(column.engineType as MySqlColumnType), kind },
});

/** Every column as stored (no text projection), so each wire type meets each encoder. */
const plainSelect = (table: TableInfo): string =>
  `SELECT ${table.columns.map((c) => quoteIdent(c.name)).join(', ')} FROM ${quoteIdent(table.name)} ORDER BY ${quoteIdent('id')}`;

const SMALL_BATCHES: ReadBudget = { batchBytes: 2_000, batchRows: 7, remainingBytes: () => Number.MAX_SAFE_INTEGER };

describe('raw row rendering is byte-identical to the parsed-row renderer (MariaDB)', () => {
  const db = useTempMariaDatabase('my_raw_diff');
  let connection: Connection;
  let session: ConnectorSession;
  let tables: ReadonlyMap<string, TableInfo>;

  beforeAll(async () => {
    await db().query(EDGE_SQL);
    await db().query('UPDATE edge SET txt = ?, vc = ?, tt = ? WHERE id = 2', [SPECIAL_TEXT, SPECIAL_TEXT, SPECIAL_TEXT.slice(0, 40)]);
    await db().query(MANY_SQL);
    ({ connection } = await connectMySql(connectionOptions(resolvedMySqlDatasource(db()), undefined, 5_000), 5_000));
    session = await new MySqlConnector().open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    tables = (await session.discover(null, new AbortController().signal)).tables;
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    if (connection !== undefined) await endConnection(connection, 2_000);
  });

  const compare = async (sql: string, columns: readonly ColumnInfo[], budget: ReadBudget = DEFAULT_READ_BUDGET) => {
    const parsed = await renderParsed(connection, sql, columns, budget);
    const raw = await renderRaw(connection, sql, columns, budget);
    expect(difference(raw.json, parsed.json)).toBeUndefined();
    expect(raw.rows).toBe(parsed.rows);
    return raw;
  };

  it('renders every column type the connector maps, with the discovered kinds and the read statement', async () => {
    for (const key of ['edge', 'edge_view', 'loose_json', 'many']) {
      const table = tables.get(key)!;
      const sql = renderSql(buildSelect({ table, columns: table.columns }));
      const raw = await compare(sql, table.columns);
      expect(raw.rows).toBeGreaterThan(0);
      await compare(sql, table.columns, SMALL_BATCHES);
    }
    expect(
      (
        await compare(
          renderSql(buildSelect({ table: tables.get('many')!, columns: tables.get('many')!.columns })),
          tables.get('many')!.columns,
        )
      ).rows,
    ).toBe(MANY_ROWS);
  });

  it('renders every kind over every wire type, as a stale schema snapshot could pair them', async () => {
    for (const key of ['edge', 'edge_view']) {
      const table = tables.get(key)!;
      for (const kind of KINDS)
        await compare(
          plainSelect(table),
          table.columns.map((c) => withKind(c, kind)),
        );
    }
  });

  it('matches what the connector yields end to end', async () => {
    for (const key of ['edge', 'many']) {
      const table = tables.get(key)!;
      const chunks: RowBatch[] = [];
      for await (const batch of session.readRows({ table, columns: table.columns }, new AbortController().signal)) chunks.push(batch);
      const parsed = await renderParsed(
        connection,
        renderSql(buildSelect({ table, columns: table.columns })),
        table.columns,
        DEFAULT_READ_BUDGET,
      );
      expect(difference(joined(chunks).json, parsed.json)).toBeUndefined();
    }
  });

  it('renders projections in request order, and an empty projection', async () => {
    const edge = tables.get('edge')!;
    const picked = ['txt', 'id', 'bu', 'dtm', 'j'].map((n) => edge.columns.find((c) => c.name === n)!);
    await compare(renderSql(buildSelect({ table: edge, columns: picked })), picked);
    await compare(renderSql(buildSelect({ table: edge, columns: [] })), []);
  });

  it('leaves text in a character set other than UTF-8 to mysql2, value by value', async () => {
    const edge = tables.get('edge')!;
    try {
      // NULL: each column in its own character set (latin1, ascii, ucs2, utf8mb3, …);
      // latin1/binary: everything converted to it.
      for (const results of ['NULL', 'latin1', 'binary']) {
        await runQuery(connection, `SET SESSION character_set_results = ${results}`);
        await compare(renderSql(buildSelect({ table: edge, columns: edge.columns })), edge.columns);
        for (const kind of ['text', 'other', 'binary'] as const)
          await compare(
            plainSelect(edge),
            edge.columns.map((c) => withKind(c, kind)),
          );
      }
    } finally {
      await runQuery(connection, 'SET SESSION character_set_results = utf8mb4');
    }
  });
});
