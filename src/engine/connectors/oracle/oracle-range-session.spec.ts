import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CursorRange } from '../../incremental/cursor-range.js';
import { ABORT_BUDGET_MS } from '../shared/abortable-read.js';
import type { TableInfo, TableReadRequest } from '../shared/engine-connector.js';
import { oracleDriver, type OracleBindValue, type OracleConnection, type OracleExecuteOptions } from './oracle-driver.js';
import { OracleSession } from './oracle-session.js';
import { OracleConnector } from './oracle.connector.js';
import { fakeOracleDatasource, FAKE_ORACLE_PASSWORD } from './testing/fake-oracle-datasource.js';
import { startFakeOracleServer, type FakeOracleServer } from './testing/fake-oracle-server.js';
import { countRows } from '../testing/batch-reading.js';
import { oracleColumn } from './testing/oracle-columns.js';

/**
 * Ranged reads of the Oracle session: the read-only transaction around the bound and the rows,
 * the bound told before any row, and the transaction ended whatever happens. Scripted
 * node-oracledb connections here, and once the real thin driver against the fake server;
 * test/integration/oracle-incremental.spec.ts runs them against a real server.
 */
const driver = oracleDriver();
const col = oracleColumn;
const ID = col('ID', 'NUMBER', 10, 0);
const AT = col('AT', 'TIMESTAMP(9)', null, 9);
const TABLE: TableInfo = { schema: 'FETCHER', name: 'EVENTS', key: 'EVENTS', columns: [ID, AT], primaryKey: ['ID'] };
const RANGE: CursorRange = { column: AT, kind: 'timestamp', after: '2024-01-01T00:00:00.000000000' };

const isBound = (sql: string) => sql.includes('MAX(t.');

interface Script {
  /** The bound query's rows. */
  bound?: unknown[][] | Error;
  /** The read's batches (getRows answers), or its failure. */
  read?: unknown[][][] | Error;
  /** The closing rollback never answers. */
  rollbackHangs?: boolean;
}

/** A scripted connection: every execute logged; the bound, the read's result set and the rollback as scripted. */
function scripted(script: Script = {}) {
  const calls: { sql: string; binds?: readonly OracleBindValue[]; options?: OracleExecuteOptions }[] = [];
  const batches = script.read instanceof Error ? [] : [...(script.read ?? [[['1', ' 2024-01-02T00:00:00.000000000']]])];
  const resultSet = {
    getRows: vi.fn(async () => batches.shift() ?? []),
    close: vi.fn(async () => undefined),
  };
  let rollbacks = 0;
  const connection = {
    execute: vi.fn(async (sql: string, binds?: readonly OracleBindValue[], options?: OracleExecuteOptions) => {
      calls.push({ sql, binds, options });
      if (isBound(sql)) {
        if (script.bound instanceof Error) throw script.bound;
        return { rows: script.bound ?? [[' 2024-01-15T10:20:30.123456789']] };
      }
      if (options?.resultSet) {
        if (script.read instanceof Error) throw script.read;
        return { resultSet };
      }
      if (sql === 'ROLLBACK' && ++rollbacks > 1 && script.rollbackHangs) return new Promise<never>(() => undefined);
      return { rows: [] };
    }),
    break: vi.fn(async (): Promise<void> => undefined),
    close: vi.fn(async (): Promise<void> => undefined),
    isHealthy: () => true,
  } satisfies OracleConnection;
  return { connection, resultSet, calls, sqls: () => calls.map((c) => c.sql) };
}

const session = (connection: OracleConnection) => new OracleSession(connection, driver, { configName: 'ora', defaultSchema: 'FETCHER' });
const ranged = (bounds: (string | null)[], range: CursorRange = RANGE): TableReadRequest => ({
  table: TABLE,
  columns: TABLE.columns,
  range,
  onRangeBound: (upper) => bounds.push(upper),
});

describe('Oracle ranged reads', () => {
  it('reads bound and rows in one read-only transaction, tells the bound before the first row, then commits', async () => {
    const fake = scripted();
    const bounds: (string | null)[] = [];
    const iterator = session(fake.connection).readRows(ranged(bounds), new AbortController().signal)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.json.toString('utf8')).toBe('{"ID":1,"AT":"2024-01-02T00:00:00.000000000"}');
    expect(bounds).toEqual(['2024-01-15T10:20:30.123456789']);
    const [end, begin, bound, read] = fake.calls;
    expect([end.sql, begin.sql]).toEqual(['ROLLBACK', 'SET TRANSACTION READ ONLY']);
    expect(bound.sql).toBe(
      `SELECT TO_CHAR("AT", 'SYYYY-MM-DD"T"HH24:MI:SS.FF9') AS "AT" FROM (SELECT MAX(t."AT") AS "AT" FROM "FETCHER"."EVENTS" t)` +
        ` WHERE "AT" > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF9')`,
    );
    expect(bound.binds).toEqual(['2024-01-01 00:00:00.000000000']);
    expect(bound.options).toMatchObject({ outFormat: driver.OUT_FORMAT_ARRAY });
    expect(bound.options?.resultSet).toBeUndefined();
    expect(read.sql).toBe(
      `SELECT "ID", TO_CHAR("AT", 'SYYYY-MM-DD"T"HH24:MI:SS.FF9') AS "AT" FROM "FETCHER"."EVENTS" t` +
        ` WHERE "AT" > TO_TIMESTAMP(:1, 'YYYY-MM-DD HH24:MI:SS.FF9') AND "AT" <= TO_TIMESTAMP(:2, 'YYYY-MM-DD HH24:MI:SS.FF9') ORDER BY t."ID"`,
    );
    expect(read.binds).toEqual(['2024-01-01 00:00:00.000000000', '2024-01-15 10:20:30.123456789']);
    expect(fake.sqls()).not.toContain('COMMIT');
    expect((await iterator.next()).done).toBe(true);
    expect(fake.sqls().at(-1)).toBe('COMMIT');
    expect(fake.sqls().filter((sql) => sql === 'ROLLBACK')).toHaveLength(1);
  });

  it('reads NUMBER bounds as exact text', async () => {
    const fake = scripted({ bound: [['12345678901234567890']] });
    const bounds: (string | null)[] = [];
    await countRows(session(fake.connection).readRows(ranged(bounds, { column: ID, kind: 'integer' }), new AbortController().signal));
    expect(bounds).toEqual(['12345678901234567890']);
    expect(fake.calls[2].options?.fetchTypeHandler?.({ name: 'ID', dbType: driver.DB_TYPE_NUMBER })).toEqual({ type: driver.STRING });
    expect(fake.calls[3].binds).toEqual(['12345678901234567890']);
  });

  it('tells a null bound and reads nothing when nothing lies above the mark, or the column holds no value', async () => {
    for (const bound of [[], [[null]]]) {
      const fake = scripted({ bound });
      const bounds: (string | null)[] = [];
      expect(await countRows(session(fake.connection).readRows(ranged(bounds), new AbortController().signal))).toBe(0);
      expect(bounds).toEqual([null]);
      expect(fake.calls.some((c) => c.options?.resultSet)).toBe(false);
      expect(fake.sqls().at(-1)).toBe('COMMIT');
    }
  });

  it('rolls back when the read fails and reports the failure', async () => {
    const fake = scripted({ read: new Error('ORA-01555: snapshot too old: rollback segment number 9 too small\nmore') });
    const bounds: (string | null)[] = [];
    await expect(countRows(session(fake.connection).readRows(ranged(bounds), new AbortController().signal))).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: 'EVENTS',
      message: 'Reading table "EVENTS" failed: ORA-01555: snapshot too old: rollback segment number 9 too small',
    });
    expect(bounds).toHaveLength(1);
    expect(fake.sqls().at(-1)).toBe('ROLLBACK');
    expect(fake.sqls()).not.toContain('COMMIT');
  });

  it('rolls back when the bound query fails, before telling any bound', async () => {
    const fake = scripted({ bound: new Error('ORA-00942: table or view does not exist') });
    const bounds: (string | null)[] = [];
    await expect(countRows(session(fake.connection).readRows(ranged(bounds), new AbortController().signal))).rejects.toMatchObject({
      name: 'DatasourceQueryError',
    });
    expect(bounds).toEqual([]);
    expect(fake.sqls().slice(-2)).toEqual([expect.stringContaining('MAX(t."AT")'), 'ROLLBACK']);
  });

  it('refuses a starting value the column cannot read before sending anything', async () => {
    const fake = scripted();
    await expect(
      countRows(
        session(fake.connection).readRows(ranged([], { column: AT, kind: 'timestamp', from: 'last week' }), new AbortController().signal),
      ),
    ).rejects.toMatchObject({ name: 'DatasourceQueryError', message: expect.stringContaining('is not an ISO-8601 date') });
    expect(fake.connection.execute).not.toHaveBeenCalled();
  });

  it('closes the cursor and rolls back when the consumer stops early', async () => {
    const full = Array.from({ length: 2_000 }, (_, i) => [String(i + 1), ' 2024-01-02T00:00:00.000000000']);
    const fake = scripted({ read: [full, full] });
    for await (const batch of session(fake.connection).readRows(ranged([]), new AbortController().signal)) {
      expect(batch.rowCount).toBeGreaterThan(0);
      break;
    }
    expect(fake.resultSet.close).toHaveBeenCalledTimes(1);
    expect(fake.sqls().at(-1)).toBe('ROLLBACK');
    expect(fake.sqls()).not.toContain('COMMIT');
  });

  it('breaks the fetch and rolls back on abort, rejecting with the reason', async () => {
    const fake = scripted();
    let fail: (error: Error) => void = () => undefined;
    fake.resultSet.getRows.mockImplementationOnce(() => new Promise((_, reject) => (fail = reject)));
    fake.connection.break.mockImplementation(async () => fail(new Error('ORA-01013: user requested cancel of current operation')));
    const controller = new AbortController();
    const reason = new Error('job timed out');
    const reading = countRows(session(fake.connection).readRows(ranged([]), controller.signal));
    await vi.waitFor(() => expect(fake.resultSet.getRows).toHaveBeenCalled());
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(fake.connection.break).toHaveBeenCalledTimes(1);
    expect(fake.sqls().at(-1)).toBe('ROLLBACK');
  });

  it('cuts the connection when the rollback is never answered, rather than leave the transaction open', async () => {
    const fake = scripted({ read: new Error('ORA-00600: internal error'), rollbackHangs: true });
    const s = session(fake.connection);
    const started = Date.now();
    await expect(countRows(s.readRows(ranged([]), new AbortController().signal))).rejects.toMatchObject({ name: 'DatasourceQueryError' });
    expect(Date.now() - started).toBeLessThan(ABORT_BUDGET_MS + 1_000);
    await expect(countRows(s.readRows(ranged([]), new AbortController().signal))).rejects.toMatchObject({
      message: 'Connection lost: transaction could not be rolled back; connection closed',
    });
  });
});

describe('Oracle ranged reads through node-oracledb (fake server)', () => {
  let server: FakeOracleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('runs the transaction statements, the bound and the read through the thin driver', async () => {
    server = await startFakeOracleServer({
      password: FAKE_ORACLE_PASSWORD,
      answer: (sql) => {
        if (isBound(sql)) return { columns: ['AT'], rows: [[' 2024-01-15T10:20:30.123456789']] };
        if (sql.includes('FROM "FETCHER"."EVENTS"')) return { columns: ['ID', 'AT'], rows: [['1', ' 2024-01-02T00:00:00.000000000']] };
        return { done: true };
      },
    });
    const s = await new OracleConnector().open(fakeOracleDatasource(server.port), { connectTimeoutMs: 5_000 });
    try {
      const bounds: (string | null)[] = [];
      const parts: string[] = [];
      for await (const batch of s.readRows(ranged(bounds), new AbortController().signal)) parts.push(batch.json.toString('utf8'));
      expect(bounds).toEqual(['2024-01-15T10:20:30.123456789']);
      expect(parts.join(',')).toBe('{"ID":1,"AT":"2024-01-02T00:00:00.000000000"}');
      expect(server.statements.slice(1).map((sql) => (isBound(sql) ? 'bound' : sql.startsWith('SELECT') ? 'read' : sql))).toEqual([
        'ROLLBACK',
        'SET TRANSACTION READ ONLY',
        'bound',
        'read',
        'COMMIT',
      ]);
    } finally {
      await s.close();
    }
  });
});
