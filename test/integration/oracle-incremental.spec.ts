import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { OracleConnector } from '../../src/engine/connectors/oracle/oracle.connector.js';
import {
  createTempOracleSchema,
  ORACLE_SKIP_REASON,
  parseOracleUrl,
  resolvedOracleDatasource,
  TEST_ORACLE_URL,
  type OracleTestServer,
  type TempOracleSchema,
} from '../helpers/oracle-database.js';
import { rangedReader } from '../../src/engine/connectors/testing/ranged-reads.js';

/**
 * Incremental reads against a real Oracle Database (docs/incremental.md): the bound rendered as
 * the rows render the column, marks that compare exactly at nanoseconds and with offsets, the lag
 * as an interval, and the read-only transaction the bound and the rows share.
 */
const DDL = (t: string) => `CREATE TABLE "${t}" (
  "ID" NUMBER(10) PRIMARY KEY, "N" NUMBER(19), "AMOUNT" NUMBER(12,2), "ANY_NUM" NUMBER,
  "D" DATE, "TS" TIMESTAMP(9), "TSTZ" TIMESTAMP(3) WITH TIME ZONE, "TSLTZ" TIMESTAMP(6) WITH LOCAL TIME ZONE,
  "BD" BINARY_DOUBLE, "VC" VARCHAR2(20))`;
const ROWS = (t: string): string[] => [
  `INSERT INTO "${t}" VALUES (1, 9223372036854775806, 10.5, 0.1, TO_DATE('2024-01-01 10:00:00', 'YYYY-MM-DD HH24:MI:SS'),
    TO_TIMESTAMP('2024-01-01 00:00:00.000000001', 'YYYY-MM-DD HH24:MI:SS.FF9'),
    TO_TIMESTAMP_TZ('2024-01-01 10:00:00.123 +05:30', 'YYYY-MM-DD HH24:MI:SS.FF TZH:TZM'),
    TO_TIMESTAMP_TZ('2024-01-01 00:00:00.000001 +00:00', 'YYYY-MM-DD HH24:MI:SS.FF TZH:TZM'), 0.5, 'a')`,
  `INSERT INTO "${t}" VALUES (2, 9223372036854775807, 99.99, 12345678901234567890.5, TO_DATE('2024-01-02 00:00:00', 'YYYY-MM-DD HH24:MI:SS'),
    TO_TIMESTAMP('2024-01-02 00:00:00.123456789', 'YYYY-MM-DD HH24:MI:SS.FF9'),
    TO_TIMESTAMP_TZ('2024-01-01 06:00:00.124 +01:00', 'YYYY-MM-DD HH24:MI:SS.FF TZH:TZM'),
    TO_TIMESTAMP_TZ('2024-01-02 00:00:00.5 +02:00', 'YYYY-MM-DD HH24:MI:SS.FF TZH:TZM'), 1.5, 'b')`,
  `INSERT INTO "${t}" ("ID", "VC") VALUES (3, 'c')`,
];

/** Each cursor column's values in rows 1 and 2 as the result writes them. */
const VALUES: readonly (readonly [string, string, string])[] = [
  ['N', '9223372036854775806', '9223372036854775807'],
  ['AMOUNT', '"10.50"', '"99.99"'],
  ['ANY_NUM', '"0.1"', '"12345678901234567890.5"'],
  ['D', '"2024-01-01T10:00:00"', '"2024-01-02T00:00:00"'],
  ['TS', '"2024-01-01T00:00:00.000000001"', '"2024-01-02T00:00:00.123456789"'],
  ['TSTZ', '"2024-01-01T10:00:00.123+05:30"', '"2024-01-01T06:00:00.124+01:00"'],
  ['TSLTZ', '"2024-01-01T00:00:00.000001Z"', '"2024-01-01T22:00:00.500000Z"'],
];
const text = (json: string): string => (json.startsWith('"') ? (JSON.parse(json) as string) : json);

/**
 * One statement committed by another connection on its own thread when `cue()` is called, which
 * waits for the commit: the read calls onRangeBound synchronously between the bound and the rows,
 * where nothing awaited on this thread could run.
 */
async function commitOnCue(server: OracleTestServer, sql: string): Promise<{ cue(): void; close(): Promise<number> }> {
  const flags = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const flags = new Int32Array(workerData.flags);
     const done = (state) => { Atomics.store(flags, 2, state); Atomics.notify(flags, 2); };
     (async () => {
       const connection = await require('oracledb').getConnection(workerData.connect);
       Atomics.store(flags, 0, 1);
       Atomics.wait(flags, 1, 0);
       try { await connection.execute(workerData.sql, [], { autoCommit: true }); done(1); } catch { done(2); }
       await connection.close();
     })().catch(() => done(2));`,
    {
      eval: true,
      workerData: {
        flags: flags.buffer,
        sql,
        connect: { user: server.user, password: server.password, connectString: `${server.host}:${server.port}/${server.serviceName}` },
      },
    },
  );
  for (let waited = 0; Atomics.load(flags, 0) === 0; waited += 20) {
    if (Atomics.load(flags, 2) === 2 || waited > 30_000) throw new Error('the committing thread could not connect');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    cue() {
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      Atomics.wait(flags, 2, 0, 30_000);
      if (Atomics.load(flags, 2) !== 1) throw new Error('the other connection committed nothing');
    },
    close: () => worker.terminate(),
  };
}

const suite = TEST_ORACLE_URL ? describe : describe.skip;
if (!TEST_ORACLE_URL) process.stdout.write(`\n[oracle-incremental] SKIPPED — ${ORACLE_SKIP_REASON}\n`);

suite(`Oracle incremental reads${TEST_ORACLE_URL ? '' : ` — SKIPPED: ${ORACLE_SKIP_REASON}`}`, () => {
  const connector = new OracleConnector();
  let db: TempOracleSchema;
  let session: ConnectorSession;
  let events: TableInfo;
  let name: string;

  beforeAll(async () => {
    db = await createTempOracleSchema(parseOracleUrl(TEST_ORACLE_URL!));
    name = db.name('EVENTS');
    await db.execute(DDL(name));
    for (const sql of ROWS(name)) await db.execute(sql);
    session = await connector.open(resolvedOracleDatasource(db.server), { connectTimeoutMs: 30_000 });
    events = (await session.discover([], new AbortController().signal)).tables.get(name)!;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  const { columnOf, rangeOf, ranged } = rangedReader(connector, () => ({ session, table: events }), 'ID');

  it('gives NUMBER, DATE and TIMESTAMP columns their kind, and refuses binary floats and text', () => {
    expect(Object.fromEntries(events.columns.map((c) => [c.name, connector.cursorKind(c)]))).toEqual({
      ID: 'integer',
      N: 'integer',
      AMOUNT: 'decimal',
      ANY_NUM: 'decimal',
      D: 'timestamp',
      TS: 'timestamp',
      TSTZ: 'timestamptz',
      TSLTZ: 'timestamptz',
      BD: null,
      VC: null,
    });
  });

  it.each(VALUES)(
    'bounds a first run of %s by its maximum, written as the rows write it, and reads every row with a value',
    async (column, one, two) => {
      expect(await ranged(column)).toEqual({ bound: text(two), rows: [`{"ID":1,"${column}":${one}}`, `{"ID":2,"${column}":${two}}`] });
    },
  );

  it.each(VALUES)('reads nothing above its own bound on %s: the mark compares equal to its value', async (column, _one, two) => {
    expect(await ranged(column, { after: text(two) })).toEqual({ bound: null, rows: [] });
    expect(await ranged(column, { from: text(two) })).toEqual({ bound: text(two), rows: [`{"ID":2,"${column}":${two}}`] });
  });

  it('takes the bound over the whole table, whatever the filters keep', async () => {
    expect(await ranged('TS', {}, { VC: { eq: ['a'] } })).toEqual({
      bound: '2024-01-02T00:00:00.123456789',
      rows: ['{"ID":1,"TS":"2024-01-01T00:00:00.000000001"}'],
    });
  });

  it('subtracts the lag as an interval, in the column type', async () => {
    expect((await ranged('D', { lagSeconds: 3600 })).bound).toBe('2024-01-01T23:00:00');
    expect((await ranged('TS', { lagSeconds: 1 })).bound).toBe('2024-01-01T23:59:59.123456789');
    expect((await ranged('TSTZ', { lagSeconds: 60 })).bound).toBe('2024-01-01T05:59:00.124+01:00');
    expect(await ranged('D', { lagSeconds: 86_400, after: '2024-01-01T10:00:00' })).toEqual({ bound: null, rows: [] });
  });

  it('reads the rows from the point in time the bound was taken at', async () => {
    const late = await commitOnCue(
      db.server,
      `INSERT INTO "${name}" ("ID", "TS") VALUES (10, TO_TIMESTAMP('2024-01-01 12:00:00', 'YYYY-MM-DD HH24:MI:SS'))`,
    );
    try {
      // Committed after the bound, below it: not in this read's transaction.
      const read = await ranged('TS', { after: '2024-01-01T00:00:00.000000001' }, undefined, () => late.cue());
      expect(read).toEqual({ bound: '2024-01-02T00:00:00.123456789', rows: ['{"ID":2,"TS":"2024-01-02T00:00:00.123456789"}'] });
      // A plain read afterwards sees it: the transaction is over.
      expect((await ranged('TS', { from: '2024-01-01T12:00:00' })).rows).toContain('{"ID":10,"TS":"2024-01-01T12:00:00.000000000"}');
    } finally {
      await late.close();
      await db.execute(`DELETE FROM "${name}" WHERE "ID" = 10`);
    }
  });

  it('ends its transaction when the consumer stops early: the next ranged read begins its own', async () => {
    for await (const batch of session.readRows(
      { table: events, columns: [columnOf('ID')], range: rangeOf('ID'), onRangeBound: () => undefined },
      new AbortController().signal,
    )) {
      expect(batch.rowCount).toBeGreaterThan(0);
      break;
    }
    expect((await ranged('N')).bound).toBe('9223372036854775807');
  });
});
