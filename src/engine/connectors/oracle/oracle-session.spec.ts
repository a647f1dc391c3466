import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RowBatch, RowFrame, TableInfo } from '../shared/engine-connector.js';
import { allBatches, expectNdjsonLike, ndjsonFrame } from '../testing/row-frames.js';
import { CatalogTooLargeError } from '../../errors/engine-errors.js';
import { FetCode } from '../../errors/fet-code.js';
import { CatalogBudget } from '../shared/catalog-budget.js';
import { FIRST_FETCH_ROWS } from '../shared/read-budget.js';
import { oracleDriver, type OracleBindValue, type OracleConnection, type OracleExecuteOptions } from './oracle-driver.js';
import { BATCH_ROWS, describeError, OracleSession } from './oracle-session.js';
import { oracleColumn } from './testing/oracle-columns.js';

const driver = oracleDriver();

const col = oracleColumn;
const ID = col('ID', 'NUMBER', 10, 0);
const CODE = col('CODE', 'CHAR');
const NOTE = col('NOTE', 'CLOB');
const TABLE: TableInfo = { schema: 'FETCHER', name: 'ITEMS', key: 'ITEMS', columns: [ID, CODE, NOTE], primaryKey: ['ID'] };

const ids = (from: number, count: number): unknown[][] => Array.from({ length: count }, (_, i) => [String(from + i)]);

/** A scripted node-oracledb connection: each getRows answers the next scripted batch (or a pending promise). */
function fakeConnection(batches: (unknown[][] | Promise<unknown[][]>)[] = []) {
  const calls: { sql: string; binds?: readonly OracleBindValue[]; options?: OracleExecuteOptions }[] = [];
  const resultSet = {
    getRows: vi.fn(async (_n: number) => (batches.length > 0 ? await batches.shift()! : [])),
    close: vi.fn(async () => undefined),
  };
  let healthy = true;
  const connection = {
    execute: vi.fn(async (sql: string, binds?: readonly OracleBindValue[], options?: OracleExecuteOptions) => {
      calls.push({ sql, binds, options });
      const catalog = sql.includes('ALL_TAB_COLUMNS')
        ? [['FETCHER', 'ITEMS', 'ID', 'NUMBER', 10, 0, 0, 22, null]]
        : sql.includes('ALL_CONSTRAINTS')
          ? [['FETCHER', 'ITEMS', 'ID']]
          : undefined;
      // The catalog statements are fetched through a result set of their own, in one round trip here.
      if (catalog !== undefined)
        return options?.resultSet
          ? { resultSet: { getRows: async () => catalog.splice(0), close: async (): Promise<void> => undefined } }
          : { rows: catalog };
      if (options?.resultSet) return { resultSet };
      return { rows: [] };
    }),
    break: vi.fn(async (): Promise<void> => undefined),
    close: vi.fn(async (): Promise<void> => undefined),
    isHealthy: () => healthy,
  } satisfies OracleConnection;
  return { connection, resultSet, calls, kill: () => (healthy = false) };
}

const session = (connection: OracleConnection) => new OracleSession(connection, driver, { configName: 'ora', defaultSchema: 'FETCHER' });

async function collect(batches: AsyncIterable<RowBatch>): Promise<string> {
  const parts: string[] = [];
  for await (const batch of batches) parts.push(batch.json.toString('utf8'));
  return parts.join(',');
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Oracle session: discovery', () => {
  it('runs the two catalog statements with the owners bound and builds the snapshot', async () => {
    const fake = fakeConnection();
    const snapshot = await session(fake.connection).discover(['fetcher', 'hr'], new AbortController().signal);
    expect(fake.calls.map((c) => c.binds)).toEqual([
      ['FETCHER', 'HR'],
      ['FETCHER', 'HR'],
    ]);
    expect(fake.calls[0].options).toMatchObject({ outFormat: driver.OUT_FORMAT_ARRAY });
    expect(snapshot.tables.get('ITEMS')).toMatchObject({ schema: 'FETCHER', primaryKey: ['ID'] });
  });

  it('stops a catalog that does not end at its byte budget with FET-1044, cutting the connection', async () => {
    let fetches = 0;
    const forceDisconnect = vi.fn();
    const row = (i: number) => ['FETCHER', `T${Math.floor(i / 50)}`, `COLUMN_${i}`, 'NUMBER', 10, 0, 0, 22, null];
    const endless = {
      execute: vi.fn(async () => ({
        resultSet: {
          getRows: vi.fn(async (n: number) => {
            const first = fetches++ * n;
            return Array.from({ length: n }, (_, i) => row(first + i));
          }),
          close: vi.fn(async (): Promise<void> => undefined),
        },
      })),
      break: vi.fn(async (): Promise<void> => undefined),
      close: vi.fn(async (): Promise<void> => undefined),
      isHealthy: () => forceDisconnect.mock.calls.length === 0,
      _impl: { nscon: { forceDisconnect } },
    };
    const error = await session(endless as unknown as OracleConnection)
      .discover(null, new AbortController().signal, new CatalogBudget(64 * 1024, 'ora'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogTooLargeError);
    expect((error as CatalogTooLargeError).code).toBe(FetCode.SchemaCatalogTooLarge);
    expect(forceDisconnect).toHaveBeenCalledTimes(1);
    // 64 KiB of ~60-byte rows: two fetches of 1,000 rows, not one more.
    expect(fetches).toBe(2);
  });

  it('reports a failure with the first line of the server message only', async () => {
    const fake = fakeConnection();
    fake.connection.execute.mockRejectedValueOnce(
      Object.assign(
        new Error('ORA-00942: table or view "SYS"."ALL_USERS" does not exist\nHelp: https://docs.oracle.com/error-help/db/ora-00942/'),
        { code: 'ORA-00942' },
      ),
    );
    await expect(session(fake.connection).discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      configName: 'ora',
      message: 'Schema discovery failed: ORA-00942: table or view "SYS"."ALL_USERS" does not exist',
    });
  });
});

describe('Oracle session: reading rows', () => {
  it('executes the SELECT with typed CHAR binds and exact fetch types, then fetches one batch per request', async () => {
    // The first fetch is full; the second (up to four times larger) is short.
    const fake = fakeConnection([ids(1, FIRST_FETCH_ROWS), ids(FIRST_FETCH_ROWS + 1, 3)]);
    const rows = session(fake.connection).readRows(
      { table: TABLE, columns: [ID], filters: { CODE: { eq: ['ab'] } } },
      new AbortController().signal,
    );
    const iterator = rows[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    const [call] = fake.calls;
    expect(call.sql).toBe('SELECT "ID" FROM "FETCHER"."ITEMS" t WHERE "CODE" = :1 ORDER BY t."ID"');
    expect(call.binds).toEqual([{ val: 'ab', type: driver.DB_TYPE_CHAR }]);
    expect(call.options).toMatchObject({
      resultSet: true,
      outFormat: driver.OUT_FORMAT_ARRAY,
      fetchArraySize: FIRST_FETCH_ROWS,
      prefetchRows: FIRST_FETCH_ROWS,
    });
    expect(call.options?.fetchTypeHandler?.({ name: 'ID', dbType: driver.DB_TYPE_NUMBER })).toEqual({ type: driver.STRING });
    // Backpressure: the second batch is not fetched while the consumer is still on the first.
    expect(fake.resultSet.getRows).toHaveBeenCalledTimes(1);
    expect(fake.resultSet.getRows).toHaveBeenCalledWith(FIRST_FETCH_ROWS);
    let rest = 0;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += next.value.rowCount;
    expect(first.value!.rowCount + rest).toBe(FIRST_FETCH_ROWS + 3);
    // A short batch ends the read without another round trip; the cursor is closed.
    expect(fake.resultSet.getRows).toHaveBeenCalledTimes(2);
    expect(fake.resultSet.close).toHaveBeenCalledTimes(1);
  });

  it('renders values and asks once more after an exactly full batch', async () => {
    const fake = fakeConnection([ids(1, BATCH_ROWS)]);
    const json = await collect(session(fake.connection).readRows({ table: TABLE, columns: [ID] }, new AbortController().signal));
    expect(json.startsWith('{"ID":1},{"ID":2}')).toBe(true);
    expect(fake.resultSet.getRows).toHaveBeenCalledTimes(2);
  });

  it("frames the rows as the request asks: NDJSON lines holding the JSON frame's rows", async () => {
    const rows = () => [['1', 'ab', 'line\n"two" \\'], ['2', null, ''], ...ids(3, 2_000).map(([id]) => [id, 'cd', 'x'.repeat(40)])];
    const read = (rowFrame?: RowFrame) =>
      allBatches(
        session(fakeConnection([rows()]).connection).readRows(
          { table: TABLE, columns: [ID, CODE, NOTE], rowFrame },
          new AbortController().signal,
        ),
      );
    const framed = await read(ndjsonFrame('ora', 'ITEMS'));
    expect(framed.length).toBeGreaterThan(1);
    expectNdjsonLike(framed, await read(), 'ora', 'ITEMS');
  });

  it('reads in small batches when a LOB is projected (LOBs are fetched inline)', async () => {
    const fake = fakeConnection([[['1', 'x']]]);
    expect(await collect(session(fake.connection).readRows({ table: TABLE, columns: [ID, NOTE] }, new AbortController().signal))).toBe(
      '{"ID":1,"NOTE":"x"}',
    );
    expect(fake.resultSet.getRows).toHaveBeenCalledWith(FIRST_FETCH_ROWS);
    expect(fake.calls[0].options).toMatchObject({ fetchArraySize: FIRST_FETCH_ROWS, prefetchRows: FIRST_FETCH_ROWS });
  });

  it('closes the cursor when the consumer stops early, without interrupting anything', async () => {
    const fake = fakeConnection([ids(1, BATCH_ROWS), ids(BATCH_ROWS + 1, BATCH_ROWS)]);
    for await (const batch of session(fake.connection).readRows({ table: TABLE, columns: [ID] }, new AbortController().signal)) {
      expect(batch.rowCount).toBeGreaterThan(0);
      break;
    }
    expect(fake.resultSet.close).toHaveBeenCalledTimes(1);
    expect(fake.connection.break).not.toHaveBeenCalled();
  });

  it('breaks a running fetch on abort, rejects with the abort reason, and stays usable', async () => {
    let fail: (error: Error) => void = () => undefined;
    const stuck = new Promise<unknown[][]>((_, reject) => {
      fail = reject;
    });
    const fake = fakeConnection([stuck]);
    fake.connection.break.mockImplementation(async () => {
      fail(Object.assign(new Error('ORA-01013: user requested cancel of current operation'), { code: 'ORA-01013' }));
    });
    const s = session(fake.connection);
    const controller = new AbortController();
    const reading = collect(s.readRows({ table: TABLE, columns: [ID] }, controller.signal));
    await vi.waitFor(() => expect(fake.resultSet.getRows).toHaveBeenCalled());
    controller.abort(new Error('job timed out'));
    await expect(reading).rejects.toThrow('job timed out');
    expect(fake.connection.break).toHaveBeenCalledTimes(1);
    expect(fake.resultSet.close).toHaveBeenCalledTimes(1);
    // The session is still usable.
    fake.resultSet.getRows.mockResolvedValueOnce([['7']]);
    expect(await collect(s.readRows({ table: TABLE, columns: [ID] }, new AbortController().signal))).toBe('{"ID":7}');
  });

  it('closes the cursor of a statement that completes just after the abort', async () => {
    const fake = fakeConnection();
    const controller = new AbortController();
    fake.connection.execute.mockImplementationOnce(
      () =>
        new Promise((resolve) =>
          controller.signal.addEventListener('abort', () => setTimeout(() => resolve({ resultSet: fake.resultSet }), 5)),
        ),
    );
    const reading = collect(session(fake.connection).readRows({ table: TABLE, columns: [ID] }, controller.signal));
    await vi.waitFor(() => expect(fake.connection.execute).toHaveBeenCalled());
    controller.abort(new Error('stop'));
    await expect(reading).rejects.toThrow('stop');
    await vi.waitFor(() => expect(fake.resultSet.close).toHaveBeenCalledTimes(1));
    expect(fake.resultSet.getRows).not.toHaveBeenCalled();
  });

  it('cuts the connection when a broken call does not end, and reports it lost afterwards', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fake = fakeConnection([new Promise<never>(() => undefined)]);
    const s = session(fake.connection);
    const controller = new AbortController();
    const reading = collect(s.readRows({ table: TABLE, columns: [ID] }, controller.signal));
    await vi.waitFor(() => expect(fake.resultSet.getRows).toHaveBeenCalled());
    controller.abort(new Error('stop'));
    // Awaited below, once the fake timers have run the settle deadline out.
    // oxlint-disable-next-line vitest/valid-expect
    const settled = expect(reading).rejects.toThrow('stop');
    await vi.advanceTimersByTimeAsync(2_100);
    await settled;
    await expect(s.discover(null, new AbortController().signal)).rejects.toMatchObject({
      message: 'Connection lost: statement could not be interrupted; connection closed',
    });
  });

  it('does not start when the signal is already aborted', async () => {
    const fake = fakeConnection();
    const controller = new AbortController();
    controller.abort(new Error('already'));
    await expect(collect(session(fake.connection).readRows({ table: TABLE, columns: [ID] }, controller.signal))).rejects.toThrow('already');
    expect(fake.connection.execute).not.toHaveBeenCalled();
  });

  it('reports a failing statement as DatasourceQueryError naming the table, without SQL or values', async () => {
    const fake = fakeConnection();
    fake.connection.execute.mockRejectedValueOnce(
      Object.assign(
        new Error('ORA-00942: table or view "FETCHER"."ITEMS" does not exist\nHelp: https://docs.oracle.com/error-help/db/ora-00942/'),
        { code: 'ORA-00942' },
      ),
    );
    await expect(
      collect(
        session(fake.connection).readRows(
          { table: TABLE, columns: [ID], filters: { CODE: { eq: ['secret'] } } },
          new AbortController().signal,
        ),
      ),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      table: 'ITEMS',
      message: 'Reading table "ITEMS" failed: ORA-00942: table or view "FETCHER"."ITEMS" does not exist',
    });
  });

  it('refuses a filter value the column type cannot read before sending anything', async () => {
    const fake = fakeConnection();
    const table: TableInfo = { ...TABLE, columns: [ID, col('DAY', 'DATE')] };
    await expect(
      collect(
        session(fake.connection).readRows({ table, columns: [ID], filters: { DAY: { gt: ['yesterday'] } } }, new AbortController().signal),
      ),
    ).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringMatching(
        /^Reading table "ITEMS" failed: filter value "yesterday" for DATE column "DAY" is not an ISO-8601 date/,
      ),
    });
    expect(fake.connection.execute).not.toHaveBeenCalled();
  });
});

describe('Oracle session: closing and lost connections', () => {
  it('closes once, however often it is called, and refuses work afterwards', async () => {
    const fake = fakeConnection();
    const s = session(fake.connection);
    await s.close();
    await expect(s.close()).resolves.toBeUndefined();
    expect(fake.connection.close).toHaveBeenCalledTimes(1);
    await expect(s.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: 'Session is closed',
    });
  });

  it('breaks a running fetch when closed under a consumer', async () => {
    let fail: (error: Error) => void = () => undefined;
    const fake = fakeConnection([new Promise<unknown[][]>((_, reject) => (fail = reject))]);
    fake.connection.break.mockImplementation(async () => fail(new Error('ORA-01013: user requested cancel of current operation')));
    const s = session(fake.connection);
    const reading = collect(s.readRows({ table: TABLE, columns: [ID] }, new AbortController().signal));
    await vi.waitFor(() => expect(fake.resultSet.getRows).toHaveBeenCalled());
    await s.close();
    await expect(reading).rejects.toMatchObject({ name: 'DatasourceQueryError', message: expect.stringContaining('ORA-01013') });
    expect(fake.connection.break).toHaveBeenCalledTimes(1);
    expect(fake.connection.close).toHaveBeenCalledTimes(1);
  });

  it('notices a dead connection through the driver health check', async () => {
    const fake = fakeConnection();
    fake.kill();
    await expect(session(fake.connection).discover(null, new AbortController().signal)).rejects.toMatchObject({
      message: 'Connection lost: connection to Oracle Database was closed or broken',
    });
  });

  it('describes errors by their first line only', () => {
    expect(describeError(new Error('NJS-500: connection to Oracle Database was closed or broken\nNJS-521: (CONNECTION_ID=x)'))).toBe(
      'NJS-500: connection to Oracle Database was closed or broken',
    );
    expect(describeError('boom')).toBe('unknown error');
    expect(describeError(new Error('x'.repeat(1000)))).toHaveLength(300);
  });
});
