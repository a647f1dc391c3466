import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import type { FilterCondition, FilterScalar } from '../../src/engine/request/data-request.js';
import { createTempMariaDatabase, resolvedMySqlDatasource } from '../helpers/mariadb-database.js';
import { createTempDatabase, PG_READ_PATHS, resolvedDatasource } from '../helpers/pg-database.js';

/**
 * `in` / `nin` lists far above every engine's parameter limit (PostgreSQL: 65,535 per Bind
 * message), through the connectors, against the real servers: the rows must be those a short
 * list of the same values selects.
 */
const LIST_SIZE = 70_000;
/** Quotes, comma, braces, backslash: what an array literal or a string literal must escape. */
const AWKWARD = `a,"b"{c}\\d 'e'`;

interface Row {
  readonly id: number;
  readonly n: number | null;
  readonly code: string | null;
}

const ROWS: readonly Row[] = [
  ...Array.from({ length: 300 }, (_, i): Row => {
    const id = i + 1;
    const n = id % 25 === 0 ? null : id * 400;
    return { id, n, code: id % 30 === 0 ? null : `c${id * 400}` };
  }),
  { id: 301, n: 7, code: AWKWARD },
];

const NUMBERS = Array.from({ length: LIST_SIZE }, (_, i) => i);
const CODES = [...Array.from({ length: LIST_SIZE - 1 }, (_, i) => `c${i}`), AWKWARD];
const inNumbers = new Set<number>(NUMBERS);
const inCodes = new Set<string>(CODES);

const idsWhere = (keep: (row: Row) => boolean): number[] => ROWS.filter(keep).map((row) => row.id);
const sqlText = (value: string | null) => (value === null ? 'NULL' : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);

/** The cases both engines share: same filter, same rows. */
const CASES: readonly [string, Record<string, FilterCondition>, number[]][] = [
  [`n in ${LIST_SIZE} numbers`, { n: { in: NUMBERS } }, idsWhere((r) => r.n !== null && inNumbers.has(r.n))],
  [`n in ${LIST_SIZE} numbers and null`, { n: { in: [...NUMBERS, null] } }, idsWhere((r) => r.n === null || inNumbers.has(r.n))],
  [`n nin ${LIST_SIZE} numbers (NULL rows match neither)`, { n: { nin: NUMBERS } }, idsWhere((r) => r.n !== null && !inNumbers.has(r.n))],
  [`n nin ${LIST_SIZE} numbers and null`, { n: { nin: [null, ...NUMBERS] } }, idsWhere((r) => r.n !== null && !inNumbers.has(r.n))],
  [`n in ${LIST_SIZE} numeric strings`, { n: { in: NUMBERS.map(String) } }, idsWhere((r) => r.n !== null && inNumbers.has(r.n))],
  [`code in ${LIST_SIZE} strings`, { code: { in: CODES } }, idsWhere((r) => r.code !== null && inCodes.has(r.code))],
  [`code in ${LIST_SIZE} strings and null`, { code: { in: [...CODES, null] } }, idsWhere((r) => r.code === null || inCodes.has(r.code))],
  [`code nin ${LIST_SIZE} strings`, { code: { nin: CODES } }, idsWhere((r) => r.code !== null && !inCodes.has(r.code))],
  [`code nin ${LIST_SIZE} strings and null`, { code: { nin: [...CODES, null] } }, idsWhere((r) => r.code !== null && !inCodes.has(r.code))],
  [
    'two long lists ANDed',
    { n: { in: NUMBERS }, code: { nin: CODES.slice(0, 40_000) } },
    idsWhere((r) => r.n !== null && inNumbers.has(r.n) && r.code !== null && !CODES.slice(0, 40_000).includes(r.code)),
  ],
];

const UPPER_CODES: FilterScalar[] = CODES.map((c) => c.toUpperCase());

async function readIds(session: ConnectorSession, table: TableInfo, filters: Record<string, FilterCondition>): Promise<number[]> {
  const id = table.columns.find((c) => c.name === 'id')!;
  const parts: string[] = [];
  for await (const batch of session.readRows({ table, columns: [id], filters }, new AbortController().signal))
    parts.push(batch.json.toString('utf8'));
  return (JSON.parse('[' + parts.join(',') + ']') as { id: number }[]).map((r) => r.id);
}

describe.each(PG_READ_PATHS)('value lists beyond the parameter limits, on PostgreSQL (%s path)', (readPath) => {
  let drop: () => Promise<void>;
  let session: ConnectorSession;
  let items: TableInfo;

  beforeAll(async () => {
    const db = await createTempDatabase('pg_large_lists');
    drop = () => db.drop();
    const values = ROWS.map((r) => `(${r.id}, ${r.n ?? 'NULL'}, ${r.code === null ? 'NULL' : `E${sqlText(r.code)}`})`).join(', ');
    await db.query(`CREATE TABLE items (id int PRIMARY KEY, n int, code text); INSERT INTO items VALUES ${values};`);
    session = await new PostgresConnector(readPath).open(resolvedDatasource(db), { connectTimeoutMs: 5_000 });
    items = (await session.discover(['public'], new AbortController().signal)).tables.get('items')!;
  });
  afterAll(async () => {
    await session?.close();
    await drop?.();
  });

  it('has the awkward row the cases rely on', async () => {
    expect(await readIds(session, items, { code: { eq: [AWKWARD] } })).toEqual([301]);
  });

  it.each(CASES)('%s', async (_label, filters, expected) => {
    expect(expected.length).toBeGreaterThan(0);
    expect(await readIds(session, items, filters)).toEqual(expected);
  });

  it('compares text as the column does: case-sensitive', async () => {
    expect(await readIds(session, items, { code: { in: UPPER_CODES } })).toEqual([]);
  });
});

describe('value lists beyond the parameter limits, on MariaDB', () => {
  let drop: () => Promise<void>;
  let session: ConnectorSession;
  let items: TableInfo;

  beforeAll(async () => {
    const db = await createTempMariaDatabase('my_large_lists');
    drop = () => db.drop();
    const values = ROWS.map((r) => `(${r.id}, ${r.n ?? 'NULL'}, ${sqlText(r.code)})`).join(', ');
    await db.query(
      `CREATE TABLE items (id INT PRIMARY KEY, n INT, code VARCHAR(40) COLLATE utf8mb4_general_ci); INSERT INTO items VALUES ${values};`,
    );
    session = await new MySqlConnector().open(resolvedMySqlDatasource(db), { connectTimeoutMs: 5_000 });
    items = (await session.discover(null, new AbortController().signal)).tables.get('items')!;
  });
  afterAll(async () => {
    await session?.close();
    await drop?.();
  });

  it('has the awkward row the cases rely on', async () => {
    expect(await readIds(session, items, { code: { eq: [AWKWARD] } })).toEqual([301]);
  });

  // Values are escaped into the statement (text protocol): no parameter limit, only
  // max_allowed_packet; above in_predicate_conversion_threshold (1000) MariaDB turns the IN
  // list into a subquery, which must change nothing.
  it.each(CASES)('%s', async (_label, filters, expected) => {
    expect(expected.length).toBeGreaterThan(0);
    expect(await readIds(session, items, filters)).toEqual(expected);
  });

  it('compares text as the column does: case-insensitive under utf8mb4_general_ci', async () => {
    expect(await readIds(session, items, { code: { in: UPPER_CODES } })).toEqual(idsWhere((r) => r.code !== null && inCodes.has(r.code)));
    expect(await readIds(session, items, { code: { nin: UPPER_CODES } })).toEqual(idsWhere((r) => r.code !== null && !inCodes.has(r.code)));
  });
});
