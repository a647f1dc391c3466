import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { OracleConnector } from '../../src/engine/connectors/oracle/oracle.connector.js';
import {
  createTempOracleSchema,
  ORACLE_SKIP_REASON,
  parseOracleUrl,
  resolvedOracleDatasource,
  TEST_ORACLE_URL,
  type TempOracleSchema,
} from '../helpers/oracle-database.js';
import { collectBatches, countTableRows, expectKeyOrderedBatches } from '../../src/engine/connectors/testing/batch-reading.js';

/** Streaming with backpressure, early stop, and abort of a running statement (connection.break()). */

const suite = TEST_ORACLE_URL ? describe : describe.skip;
if (!TEST_ORACLE_URL) process.stdout.write(`\n[oracle-streaming] SKIPPED — ${ORACLE_SKIP_REASON}\n`);

suite(`OracleConnector streaming and abort${TEST_ORACLE_URL ? '' : ` — SKIPPED: ${ORACLE_SKIP_REASON}`}`, () => {
  const ROWS = 50_000;
  const connector = new OracleConnector();
  let db: TempOracleSchema;
  let session: ConnectorSession;
  let big: TableInfo;
  let slow: TableInfo;

  beforeAll(async () => {
    db = await createTempOracleSchema(parseOracleUrl(TEST_ORACLE_URL!));
    await db.execute(`CREATE TABLE "${db.name('BIG')}" ("ID" NUMBER(10) PRIMARY KEY, "LABEL" VARCHAR2(200))`);
    // Inserted in reverse key order: reads must come back ordered.
    await db.execute(
      `INSERT INTO "${db.name('BIG')}" SELECT ${ROWS + 1} - LEVEL, RPAD('x', 150, 'y') FROM DUAL CONNECT BY LEVEL <= ${ROWS}`,
    );
    await db.execute(`CREATE TABLE "${db.name('SMALL')}" ("ID" NUMBER(10) PRIMARY KEY)`);
    await db.execute(`INSERT INTO "${db.name('SMALL')}" SELECT LEVEL FROM DUAL CONNECT BY LEVEL <= 2`);
    // A view that takes 30 s per row: DBMS_SESSION.SLEEP (18c+) in a function, else a huge cross join.
    let sleeper = false;
    try {
      await db.execute(`CREATE FUNCTION "${db.name('SLEEPY')}" RETURN NUMBER IS BEGIN DBMS_SESSION.SLEEP(30); RETURN 1; END;`);
      const status = await db.execute('SELECT STATUS FROM USER_OBJECTS WHERE OBJECT_NAME = :1', [db.name('SLEEPY')]);
      sleeper = status[0]?.[0] === 'VALID';
    } catch {
      sleeper = false;
    }
    await db.execute(
      sleeper
        ? `CREATE VIEW "${db.name('SLOW')}" AS SELECT "${db.name('SLEEPY')}"() AS "N" FROM DUAL`
        : `CREATE VIEW "${db.name('SLOW')}" AS SELECT COUNT(*) AS "N" FROM ALL_OBJECTS a, ALL_OBJECTS b, ALL_OBJECTS c`,
    );
    session = await connector.open(resolvedOracleDatasource(db.server), { connectTimeoutMs: 15_000 });
    const tables = (await session.discover([], new AbortController().signal)).tables;
    big = tables.get(db.name('BIG'))!;
    slow = tables.get(db.name('SLOW'))!;
  }, 180_000);

  afterAll(async () => {
    await session?.close();
    await db?.drop();
  });

  const readSmall = async (): Promise<number> =>
    countTableRows(session, (await session.discover([], new AbortController().signal)).tables.get(db.name('SMALL'))!);

  it('streams a large table in many bounded batches, in key order', async () => {
    await expectKeyOrderedBatches(session, big, { rows: ROWS, minBatches: 25, maxBatchRows: 2_000, key: 'ID' });
  });

  it('lets the consumer stop early; the cursor closes and the session stays usable', async () => {
    let seen = 0;
    for await (const batch of session.readRows({ table: big, columns: big.columns }, new AbortController().signal)) {
      seen += batch.rowCount;
      break;
    }
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(ROWS);
    expect(await readSmall()).toBe(2);
  });

  it('aborts a long-running statement on the server (break), promptly, and stays usable', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('job timed out')), 500);
    await expect(collectBatches(session.readRows({ table: slow, columns: slow.columns }, controller.signal))).rejects.toThrow(
      'job timed out',
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await readSmall()).toBe(2);
  });

  it('closing a session while a statement runs breaks it instead of waiting', async () => {
    const other = await connector.open(resolvedOracleDatasource(db.server), { connectTimeoutMs: 15_000 });
    const reading = collectBatches(other.readRows({ table: slow, columns: slow.columns }, new AbortController().signal));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    await other.close();
    await expect(reading).rejects.toMatchObject({ name: 'DatasourceQueryError' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
