import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import type { FilterCondition } from '../../src/engine/request/data-request.js';
import { OracleConnector } from '../../src/engine/connectors/oracle/oracle.connector.js';
import {
  createTempOracleSchema,
  ORACLE_FIXTURE_OTHER_OWNER,
  ORACLE_SKIP_REASON,
  parseOracleUrl,
  resolvedOracleDatasource,
  TEST_ORACLE_URL,
  type TempOracleSchema,
} from '../helpers/oracle-database.js';
import { collectBatches, expectClosesTwice } from '../../src/engine/connectors/testing/batch-reading.js';

const TEXT = 'He said "hi" \\ back\nnew\tline \u0001 😀 ção ü';

const COLUMNS = [
  'ID',
  'N19',
  'N38',
  'INT',
  'AMOUNT',
  'BIG',
  'ANY_NUM',
  'FLT',
  'BF',
  'BD',
  'D',
  'TS6',
  'TS0',
  'TSTZ',
  'TSLTZ',
  'IYM',
  'IDS',
  'VC',
  'NVC',
  'CH',
  'NCH',
  'CL',
  'NCL',
  'BL',
  'RW',
];

/** The expected JSON text of one row: every column not given is null. */
const sparse = (given: Record<string, string>): string =>
  '{' + COLUMNS.map((c) => JSON.stringify(c) + ':' + (given[c] ?? 'null')).join(',') + '}';

const FIDELITY_DDL = (t: string) => `CREATE TABLE "${t}" (
  "ID" NUMBER(10) PRIMARY KEY, "N19" NUMBER(19), "N38" NUMBER(38), "INT" INTEGER, "AMOUNT" NUMBER(12,2), "BIG" NUMBER(38,10),
  "ANY_NUM" NUMBER, "FLT" FLOAT(126), "BF" BINARY_FLOAT, "BD" BINARY_DOUBLE,
  "D" DATE, "TS6" TIMESTAMP(6), "TS0" TIMESTAMP(0), "TSTZ" TIMESTAMP(9) WITH TIME ZONE, "TSLTZ" TIMESTAMP(6) WITH LOCAL TIME ZONE,
  "IYM" INTERVAL YEAR(2) TO MONTH, "IDS" INTERVAL DAY(2) TO SECOND(6),
  "VC" VARCHAR2(100 CHAR), "NVC" NVARCHAR2(20), "CH" CHAR(5), "NCH" NCHAR(3), "CL" CLOB, "NCL" NCLOB, "BL" BLOB, "RW" RAW(16))`;

const FIDELITY_ROWS = (t: string): string[] => [
  `INSERT INTO "${t}" VALUES (1, 9223372036854775807, 12345678901234567890123456789012345678, -42, 10.5,
    1234567890123456789012345678.0123456789, 0.1, 0.1, TO_BINARY_FLOAT('0.1'), TO_BINARY_DOUBLE('0.30000000000000004'),
    TO_DATE('2024-02-29 13:45:00', 'YYYY-MM-DD HH24:MI:SS'), TO_TIMESTAMP('2024-01-15 10:20:30.123456', 'YYYY-MM-DD HH24:MI:SS.FF6'),
    TO_TIMESTAMP('2024-01-15 10:20:30', 'YYYY-MM-DD HH24:MI:SS'),
    TO_TIMESTAMP_TZ('2024-01-15 10:20:30.123456789 +05:30', 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM'),
    TO_TIMESTAMP_TZ('2024-01-15 10:20:30.5 +02:00', 'YYYY-MM-DD HH24:MI:SS.FF TZH:TZM'),
    INTERVAL '1-2' YEAR TO MONTH, INTERVAL '1 02:03:04.5' DAY TO SECOND,
    :1, :2, 'ab', :3, :4, :5, HEXTORAW('00FF10'), HEXTORAW('FF00'))`,
  `INSERT INTO "${t}" ("ID", "N19", "AMOUNT", "ANY_NUM", "BF", "BD", "D", "TSTZ", "IYM", "IDS") VALUES (2, -9223372036854775808, -0.05, 1e-130,
    BINARY_FLOAT_NAN, BINARY_DOUBLE_INFINITY, TO_DATE('-0044-03-15', 'SYYYY-MM-DD'),
    TO_TIMESTAMP_TZ('2024-06-01 00:00:00 -08:00', 'YYYY-MM-DD HH24:MI:SS TZH:TZM'),
    INTERVAL '-0-3' YEAR TO MONTH, INTERVAL '-0 00:00:00.000001' DAY TO SECOND)`,
  `INSERT INTO "${t}" ("ID") VALUES (3)`,
];

const EXPECTED_FIDELITY = [
  sparse({
    ID: '1',
    N19: '9223372036854775807',
    N38: '12345678901234567890123456789012345678',
    INT: '-42',
    AMOUNT: '"10.50"',
    BIG: '"1234567890123456789012345678.0123456789"',
    ANY_NUM: '"0.1"',
    FLT: '"0.1"',
    BF: '0.1',
    BD: '0.30000000000000004',
    D: '"2024-02-29T13:45:00"',
    TS6: '"2024-01-15T10:20:30.123456"',
    TS0: '"2024-01-15T10:20:30"',
    TSTZ: '"2024-01-15T10:20:30.123456789+05:30"',
    TSLTZ: '"2024-01-15T08:20:30.500000Z"',
    IYM: '"P1Y2M"',
    IDS: '"P1DT2H3M4.5S"',
    VC: JSON.stringify(TEXT),
    NVC: '"日本語"',
    CH: '"ab   "',
    NCH: '"ção"',
    CL: JSON.stringify(TEXT),
    NCL: '"ção 😀"',
    BL: '"AP8Q"',
    RW: '"/wA="',
  }),
  sparse({
    ID: '2',
    N19: '-9223372036854775808',
    AMOUNT: '"-0.05"',
    ANY_NUM: `"0.${'0'.repeat(129)}1"`,
    BF: '"NaN"',
    BD: '"Infinity"',
    D: '"-0044-03-15T00:00:00"',
    TSTZ: '"2024-06-01T00:00:00.000000000-08:00"',
    IYM: '"-P3M"',
    IDS: '"-PT0.000001S"',
  }),
  sparse({ ID: '3' }),
];

const suite = TEST_ORACLE_URL ? describe : describe.skip;
if (!TEST_ORACLE_URL) process.stdout.write(`\n[oracle-connector] SKIPPED — ${ORACLE_SKIP_REASON}\n`);

suite(`OracleConnector against a server${TEST_ORACLE_URL ? '' : ` — SKIPPED: ${ORACLE_SKIP_REASON}`}`, () => {
  const connector = new OracleConnector();
  let db: TempOracleSchema;
  let session: ConnectorSession;
  const t = (base: string) => db.name(base);

  beforeAll(async () => {
    db = await createTempOracleSchema(parseOracleUrl(TEST_ORACLE_URL!));
    await db.execute(FIDELITY_DDL(t('FIDELITY')));
    const [first, ...rest] = FIDELITY_ROWS(t('FIDELITY'));
    await db.execute(first, [TEXT, '日本語', 'ção', TEXT, 'ção 😀']);
    for (const sql of rest) await db.execute(sql);
    await db.execute(`CREATE VIEW "${t('ROWIDS')}" AS SELECT ROWID AS "RID", "ID" FROM "${t('FIDELITY')}"`);
    await db.execute(
      `CREATE TABLE "${db.prefix}Order Lines" ("line" NUMBER(5), "SELECT" VARCHAR2(10), "Order" NUMBER(5), PRIMARY KEY ("Order", "line"))`,
    );
    await db.execute(
      `INSERT INTO "${db.prefix}Order Lines" SELECT 2, 'b', 1 FROM DUAL UNION ALL SELECT 1, 'a', 2 FROM DUAL UNION ALL SELECT 1, 'c', 1 FROM DUAL`,
    );
    await db.execute(`CREATE TABLE "${t('DATED')}" ("D" DATE PRIMARY KEY, "V" NUMBER(3))`);
    await db.execute(
      `INSERT INTO "${t('DATED')}" SELECT TO_DATE('2024-01-01', 'YYYY-MM-DD'), 2 FROM DUAL UNION ALL SELECT TO_DATE('-0044-03-15', 'SYYYY-MM-DD'), 1 FROM DUAL`,
    );
    await db.execute(`CREATE TABLE "${t('HEAP')}" ("V" NUMBER(3))`);
    session = await connector.open(resolvedOracleDatasource(db.server), { connectTimeoutMs: 15_000 });
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  const table = async (key: string, schemas: readonly string[] | null = []): Promise<TableInfo> => {
    const info = (await session.discover(schemas, new AbortController().signal)).tables.get(key);
    if (info === undefined) throw new Error(`table ${key} not discovered`);
    return info;
  };
  const read = async (info: TableInfo, filters?: Record<string, FilterCondition>, columns = info.columns) =>
    collectBatches(session.readRows({ table: info, columns, filters }, new AbortController().signal));

  it('renders every Oracle type with full fidelity (docs/value-mapping.md)', async () => {
    const fidelity = await table(t('FIDELITY'));
    expect(fidelity.columns.map((c) => c.name)).toEqual(COLUMNS);
    const { json, rowCount } = await read(fidelity);
    expect(rowCount).toBe(3);
    // Raw text comparison: big integers and decimal digits are checked exactly, not through doubles.
    expect(json).toBe(EXPECTED_FIDELITY.join(','));
    const parsed = JSON.parse('[' + json + ']') as Record<string, unknown>[];
    expect(parsed[0].VC).toBe(TEXT);
    expect(Buffer.from(parsed[0].BL as string, 'base64')).toEqual(Buffer.from([0x00, 0xff, 0x10]));
  });

  it('renders BOOLEAN, JSON and VECTOR on 23ai', async (ctx) => {
    if (db.majorVersion < 23) ctx.skip();
    const modern = t('MODERN');
    await db.execute(`CREATE TABLE "${modern}" ("ID" NUMBER(10) PRIMARY KEY, "OK" BOOLEAN, "DOC" JSON, "V" VECTOR(3, FLOAT32))`);
    await db.execute(
      `INSERT INTO "${modern}" VALUES (1, TRUE, JSON('{"big": 12345678901234567890, "s": "a b", "n": [1, 2.5]}'), TO_VECTOR('[0.1, -2.5, 3]', 3, FLOAT32))`,
    );
    await db.execute(`INSERT INTO "${modern}" VALUES (2, FALSE, NULL, NULL)`);
    const info = await table(modern);
    expect(info.columns.map((c) => (c.engineType as { kind: string }).kind)).toEqual(['integer', 'boolean', 'json', 'vector']);
    const { json } = await read(info);
    expect(json).toMatch(
      /^\{"ID":1,"OK":true,"DOC":\{.*"big":12345678901234567890.*\},"V":\[0\.1,-2\.5,3\]\},\{"ID":2,"OK":false,"DOC":null,"V":null\}$/,
    );
    // The text above keeps all 20 digits; JSON.parse reads them as the nearest double, written out here.
    expect(JSON.parse('[' + json + ']')[0].DOC).toEqual({ big: 12_345_678_901_234_567_168, s: 'a b', n: [1, 2.5] });
    expect((await read(info, { OK: { eq: [true] } }, [info.columns[0]])).json).toBe('{"ID":1}');
  });

  it('reads ROWID through a view, and discovers views without a primary key', async () => {
    const view = await table(t('ROWIDS'));
    expect(view.primaryKey).toEqual([]);
    const rows = JSON.parse('[' + (await read(view)).json + ']') as { RID: string; ID: number }[];
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.RID).toMatch(/^[A-Za-z0-9+/]{18}$/);
  });

  it('filters with the column’s own type: exact numbers, zoned instants, blank-padded CHAR, CLOB equality, dates', async () => {
    const fidelity = await table(t('FIDELITY'));
    const id = [fidelity.columns[0]];
    const ids = async (filters: Record<string, FilterCondition>) =>
      (JSON.parse('[' + (await read(fidelity, filters, id)).json + ']') as { ID: number }[]).map((r) => r.ID);
    expect(await ids({ N38: { eq: ['12345678901234567890123456789012345678'] } })).toEqual([1]);
    expect(await ids({ N38: { eq: ['12345678901234567890123456789012345679'] } })).toEqual([]);
    expect(await ids({ TSTZ: { gt: ['2024-01-15T04:50:30Z'] } })).toEqual([1, 2]);
    expect(await ids({ TSTZ: { lt: ['2024-01-15T04:50:31Z'] } })).toEqual([1]);
    expect(await ids({ CH: { eq: ['ab'] } })).toEqual([1]);
    expect(await ids({ CL: { eq: [TEXT] }, NCL: { like: ['%😀'] } })).toEqual([1]);
    expect(await ids({ D: { between: ['2024-02-29', '2024-02-29T23:59:59'] } })).toEqual([1]);
    expect(await ids({ D: { like: ['2024-02%'] } })).toEqual([1]);
    expect(await ids({ AMOUNT: { lt: [0] }, BD: { ne: [null] } })).toEqual([2]);
  });

  it('discovers the login’s schema: bare keys, columns in order, readable types, primary keys in key order', async () => {
    const snapshot = await session.discover([], new AbortController().signal);
    const mine = [...snapshot.tables.keys()].filter((key) => key.startsWith(db.prefix));
    expect(mine).toEqual(expect.arrayContaining([t('DATED'), t('FIDELITY'), t('HEAP'), `${db.prefix}Order Lines`, t('ROWIDS')]));
    // Only the login's own objects are keyed bare.
    expect([...snapshot.tables.values()].every((info) => info.schema === db.owner && info.key === info.name)).toBe(true);
    const fidelity = snapshot.tables.get(t('FIDELITY'))!;
    expect(fidelity).toMatchObject({ schema: db.owner, name: t('FIDELITY'), key: t('FIDELITY'), primaryKey: ['ID'] });
    const type = (name: string) => fidelity.columns.find((c) => c.name === name)!;
    expect(type('AMOUNT').dataType).toBe('NUMBER(12,2)');
    expect(type('INT').dataType).toBe('INTEGER');
    expect(type('VC').dataType).toBe('VARCHAR2(100)');
    expect(type('TSTZ').dataType).toBe('TIMESTAMP(9) WITH TIME ZONE');
    expect(type('TSTZ').engineType).toMatchObject({ kind: 'timestamp_tz', fractionDigits: 9 });
    expect(snapshot.tables.get(`${db.prefix}Order Lines`)!.primaryKey).toEqual(['Order', 'line']);
    expect(JSON.parse(JSON.stringify(fidelity.columns))).toEqual(fidelity.columns);
  });

  it('discovers another owner as OWNER.TABLE (upper-casing the owner asked for), and never system owners', async (ctx) => {
    expect((await session.discover(['SYS', 'system'], new AbortController().signal)).tables.size).toBe(0);
    const all = await session.discover(null, new AbortController().signal);
    expect([...all.tables.keys()].filter((key) => /^(SYS|SYSTEM|XDB|MDSYS|CTXSYS)\./.test(key))).toEqual([]);
    expect(all.tables.has(t('FIDELITY'))).toBe(true);
    const other = await session.discover([ORACLE_FIXTURE_OTHER_OWNER.toLowerCase()], new AbortController().signal);
    if (other.tables.size === 0) {
      process.stdout.write(
        `\n[oracle-connector] other-owner check skipped: ${ORACLE_FIXTURE_OTHER_OWNER} (docker/fixtures/oracle/init.sql) is not readable on this server\n`,
      );
      ctx.skip();
    }
    const entries = other.tables.get(`${ORACLE_FIXTURE_OTHER_OWNER}.ENTRIES`)!;
    expect(entries).toMatchObject({ schema: ORACLE_FIXTURE_OTHER_OWNER, name: 'ENTRIES', primaryKey: ['ID'] });
    expect(all.tables.has(`${ORACLE_FIXTURE_OTHER_OWNER}.ENTRIES`)).toBe(true);
    // Granted SELECT on ENTRIES only: the other table of that owner is not listed.
    expect(other.tables.has(`${ORACLE_FIXTURE_OTHER_OWNER}.SECRETS`)).toBe(false);
    const rows = JSON.parse('[' + (await read(entries)).json + ']') as { ID: number }[];
    expect(rows.map((r) => r.ID)).toEqual([1, 2]);
  });

  it('reads quoted mixed-case and reserved identifiers, in primary-key order', async () => {
    const lines = await table(`${db.prefix}Order Lines`);
    expect((await read(lines)).json).toBe(
      '{"line":1,"SELECT":"c","Order":1},{"line":2,"SELECT":"b","Order":1},{"line":1,"SELECT":"a","Order":2}',
    );
    expect((await read(lines, { SELECT: { eq: ['b'] }, line: { gte: [2] } })).json).toBe('{"line":2,"SELECT":"b","Order":1}');
    // Ordered by the DATE key itself, not by its text (" 2024…" sorts before "-0044…").
    expect((await read(await table(t('DATED')))).json).toBe('{"D":"-0044-03-15T00:00:00","V":1},{"D":"2024-01-01T00:00:00","V":2}');
  });

  it('yields no batch for an empty table and can close twice', async () => {
    expect(await read(await table(t('HEAP')))).toEqual({ json: '', rowCount: 0, batches: 0 });
    await expectClosesTwice(await connector.open(resolvedOracleDatasource(db.server), { connectTimeoutMs: 15_000 }));
  });

  it('reports a failing query as DatasourceQueryError naming the table, and stays usable', async () => {
    await db.execute(`CREATE TABLE "${t('DOOMED')}" ("V" NUMBER)`);
    const doomed = await table(t('DOOMED'));
    await db.execute(`DROP TABLE "${t('DOOMED')}" PURGE`);
    await expect(read(doomed)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: t('DOOMED'),
      message: expect.stringMatching(/ORA-00942/),
    });
    await expect(read(await table(t('HEAP')))).resolves.toMatchObject({ rowCount: 0 });
  });

  it('classifies real login failures', async () => {
    const ds = resolvedOracleDatasource(db.server);
    await expect(connector.open({ ...ds, password: 'definitely-wrong' }, { connectTimeoutMs: 15_000 })).rejects.toMatchObject({
      reason: 'auth_failed',
    });
    await expect(
      connector.open({ ...ds, metadata: { serviceName: 'NO_SUCH_SERVICE' } }, { connectTimeoutMs: 15_000 }),
    ).rejects.toMatchObject({ reason: 'database_not_found' });
  });
});

describe('TEST_ORACLE_URL parsing', () => {
  it('reads user, password, host, port and service, percent-decoded', () => {
    expect(parseOracleUrl('oracle://fetcher:s%40cret%2F1@127.0.0.1:1522/FREEPDB1')).toEqual({
      host: '127.0.0.1',
      port: 1522,
      serviceName: 'FREEPDB1',
      user: 'fetcher',
      password: 's@cret/1',
    });
    expect(parseOracleUrl('oracle://u:p@[::1]/svc.example.com')).toMatchObject({ host: '::1', port: 1521, serviceName: 'svc.example.com' });
    expect(() => parseOracleUrl('postgres://u:p@h/db')).toThrow(/oracle:\/\//);
    expect(() => parseOracleUrl('oracle://h:1521/')).toThrow(/needs a user and a service name/);
  });
});
