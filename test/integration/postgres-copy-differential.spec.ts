import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { createTempDatabase, resolvedDatasource, type TempDatabase } from '../helpers/pg-database.js';

/** Every control character, the characters JSON and COPY escape, and text beyond the BMP. */
const HOSTILE_TEXT =
  Array.from({ length: 32 }, (_, i) => String.fromCharCode(i))
    .join('')
    .slice(1) + '"\\\\\\N\t\n\r\u007f\u2028\u2029 é€ 😀 $$ \'';

const EDGE_SQL = String.raw`
  CREATE TYPE mood AS ENUM ('happy', 'sad', 'it''s "odd"');
  CREATE DOMAIN label AS text;
  CREATE TABLE edge (
    id int PRIMARY KEY,
    i2 int2, i4 int4, i8 int8, o oid,
    num numeric, cash money, f4 float4, f8 float8, flag bool,
    d date, ts timestamp, tstz timestamptz, t time, ttz timetz, iv interval,
    u uuid, j json, jb jsonb, bin bytea,
    txt text, vc varchar(1000), fixed char(6), nm name, lbl label, m mood, addr inet, x xml,
    ints int[], texts text[], nums numeric[], grid int[][], tstzs timestamptz[], bins bytea[], moods mood[]
  );
`;

/** Rows that reach every fast path and every way out of one. */
const EDGE_ROWS = String.raw`
  INSERT INTO edge (id, i2, i4, i8, o, num, cash, f4, f8, flag, d, ts, tstz, t, ttz, iv, u, j, jb, bin, txt, vc, fixed, nm, lbl, m, addr, x, ints, texts, nums, grid, tstzs, bins, moods) VALUES
  (1, -32768, 2147483647, -9223372036854775808, 4294967295, '-0.000000000000000000000000000001', '-92233720368547758.08', '-3.4028235e38', '2.2250738585072014e-308', true,
   '0001-01-01', '2024-02-29 23:59:59.999999', '2024-01-15 10:20:30.123456+00', '00:00:00', '23:59:59.999999-12:34:56', '-178000000 years',
   '00000000-0000-0000-0000-000000000000', '{"a": "b\\\"c", "n": 1e400, "u": "\u00e9"}', '{"k": [1, "two", null, {"x": "\\\\"}]}', '\x5c00ff27',
   $t$${HOSTILE_TEXT}$t$, $t$${HOSTILE_TEXT}$t$, 'a"b\c', 'name with "quote"', E'lbl\\tab', 'it''s "odd"', '::1', '<a b="c">&amp;</a>',
   '{-1,0,1}', ARRAY[$t$${HOSTILE_TEXT}$t$, NULL, '', 'NULL', '\N'], '{NaN,Infinity,-Infinity,1.10}', '{{1,2},{3,NULL}}',
   ARRAY['infinity'::timestamptz, '2024-01-01 00:00:00+00', NULL], ARRAY['\x00'::bytea, '\x5c'::bytea], '{happy,"it''s \"odd\""}'),
  (2, 0, 0, 0, 0, 'NaN', '0', 'NaN', 'Infinity', false,
   'infinity', 'infinity', '-infinity', '24:00:00', '00:00:00+00', '0 seconds',
   'ffffffff-ffff-ffff-ffff-ffffffffffff', 'null', '"just a string"', '',
   '', '', '', '', '', 'sad', '0.0.0.0/0', '',
   '{}', '{}', '{}', '{}', '{}', '{}', '{}'),
  (3, NULL, NULL, NULL, NULL, 'Infinity', NULL, '-Infinity', '-Infinity', NULL,
   '2024-01-01 BC', '2024-01-01 10:00:00 BC', '0044-03-15 12:00:00+00 BC', NULL, NULL, 'P1Y2M3DT4H5M6.789S',
   NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 1, 1, 1, 1, '-Infinity', '1', '1e-45', '5e-324', true,
   '294276-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', '12:00:00.5', '12:00:00+14', '1 day -00:00:01',
   'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '[]', '{}', '\x',
   repeat('long plain text ', 10000), repeat('é', 300), 'x', 'n', 'l', 'happy', '10.0.0.1', '<x/>',
   '{1}', '{"a\\b","c\"d","e,f","{g}"}', '{1}', '{{1}}', ARRAY['2024-06-30 23:59:60+00'::timestamptz], '{"\\\\x41"}', '{sad}');
  INSERT INTO edge (id, tstz, ts, txt) SELECT 100 + g, timestamptz '2026-01-01 00:00:00+00' + g * interval '1.5 second', timestamp '2026-01-01' + g * interval '1 minute', 'row ' || g || E'\t"quoted"\n'
    FROM generate_series(1, 5000) g;
`;

async function render(session: ConnectorSession, table: TableInfo): Promise<{ bytes: Buffer; rows: number }> {
  const parts: Buffer[] = [];
  let rows = 0;
  for await (const batch of session.readRows({ table, columns: table.columns }, new AbortController().signal) as AsyncIterable<RowBatch>) {
    parts.push(batch.json, Buffer.from(','));
    rows += batch.rowCount;
  }
  return { bytes: Buffer.concat(parts), rows };
}

/**
 * The COPY path rewrites PostgreSQL's COPY text into JSON byte by byte; the cursor path encodes the
 * values pg hands over. For the same rows both must give the same bytes, whatever the values.
 */
describe.each([
  { name: 'a UTF-8 database', encoding: undefined },
  { name: 'an SQL_ASCII database holding bytes that are not UTF-8', encoding: 'SQL_ASCII' as const },
])('COPY and cursor paths give the same bytes, on $name', ({ encoding }) => {
  let db: TempDatabase;
  let copySession: ConnectorSession;
  let cursorSession: ConnectorSession;
  let table: TableInfo;

  beforeAll(async () => {
    db = await createTempDatabase('pg_copy_diff', { encoding });
    await db.query(EDGE_SQL);
    await db.query(EDGE_ROWS);
    if (encoding === 'SQL_ASCII') {
      // Raw bytes no UTF-8 decoder accepts: Latin-1, a lone continuation byte, a truncated sequence.
      await db.query(
        String.raw`CREATE TABLE raw_bytes (id int PRIMARY KEY, txt text); INSERT INTO raw_bytes VALUES (1, 'fine'), (2, E'caf\xe9 \x80 \xe2\x82 ok')`,
      );
    }
    const datasource = resolvedDatasource(db);
    copySession = await new PostgresConnector('copy').open(datasource, { connectTimeoutMs: 5_000 });
    cursorSession = await new PostgresConnector('cursor').open(datasource, { connectTimeoutMs: 5_000 });
    table = (await copySession.discover(['public'], new AbortController().signal)).tables.get('edge') as TableInfo;
  });

  afterAll(async () => {
    await copySession?.close();
    await cursorSession?.close();
    await db?.drop();
  });

  it('renders every row byte-identically, and as valid JSON', async () => {
    const viaCopy = await render(copySession, table);
    const viaCursor = await render(cursorSession, table);
    expect(viaCopy.rows).toBe(viaCursor.rows);
    expect(viaCopy.rows).toBeGreaterThan(5_000);
    const firstDifference = viaCopy.bytes.findIndex((byte, i) => byte !== viaCursor.bytes[i]);
    expect(
      firstDifference === -1 ? '' : viaCopy.bytes.subarray(Math.max(0, firstDifference - 80), firstDifference + 80).toString('utf8'),
    ).toBe(
      firstDifference === -1 ? '' : viaCursor.bytes.subarray(Math.max(0, firstDifference - 80), firstDifference + 80).toString('utf8'),
    );
    expect(viaCopy.bytes.equals(viaCursor.bytes)).toBe(true);
    const rows = JSON.parse(`[${viaCopy.bytes.subarray(0, -1).toString('utf8')}]`) as Record<string, unknown>[];
    if (encoding === undefined) expect(rows[0].txt).toBe(HOSTILE_TEXT);
  });

  it.runIf(encoding === 'SQL_ASCII')('refuses bytes that are not UTF-8 on both paths alike, rather than storing them', async () => {
    const raw = (await copySession.discover(['public'], new AbortController().signal)).tables.get('raw_bytes') as TableInfo;
    const failures = await Promise.all(
      [copySession, cursorSession].map((session) =>
        render(session, raw).then(
          () => undefined,
          (error: Error) => error.message,
        ),
      ),
    );
    expect(failures[0]).toMatch(/invalid byte sequence for encoding "UTF8".*SQLSTATE 22021/);
    expect(failures[1]).toBe(failures[0]);
  });

  it('keeps rendering the same bytes for every projection order and subset', async () => {
    const reversed = [...table.columns].reverse().filter((_, i) => i % 3 !== 1);
    const parts = await Promise.all(
      [copySession, cursorSession].map(async (session) => {
        const out: Buffer[] = [];
        for await (const batch of session.readRows({ table, columns: reversed }, new AbortController().signal))
          out.push(batch.json, Buffer.from(','));
        return Buffer.concat(out);
      }),
    );
    expect(parts[0].equals(parts[1])).toBe(true);
  });
});
