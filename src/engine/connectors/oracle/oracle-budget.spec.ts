import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetCode } from '../../errors/fet-code.js';
import type { ConnectorSession, RowBatch, TableInfo } from '../shared/engine-connector.js';
import { FIRST_FETCH_ROWS, ValueTooLargeError, type ReadBudget } from '../shared/read-budget.js';
import { fetchedBytes } from './oracle-session.js';
import { OracleConnector } from './oracle.connector.js';
import { catalogAnswer, fakeOracleDatasource, FAKE_ORACLE_PASSWORD } from './testing/fake-oracle-datasource.js';
import { startFakeOracleServer, type FakeOracleAnswer, type FakeOracleServer, type FakeOracleValue } from './testing/fake-oracle-server.js';

/**
 * Round trips sized by bytes, and values too large for what the result may still hold, through the
 * real node-oracledb thin client against the fake Oracle server, which records how many rows each
 * round trip asked for.
 */
const catalog = catalogAnswer(
  ['DOCS', 'NOTES', 'HUGE', 'SMALL'].map((name) => ({
    name,
    columns:
      name === 'SMALL'
        ? [['ID', 'NUMBER']]
        : [
            ['ID', 'NUMBER'],
            ['BODY', 'CLOB'],
          ],
  })),
);

function* docs(count: number, chars: number): Generator<FakeOracleValue[]> {
  for (let id = 1; id <= count; id++) yield [String(id), 'x'.repeat(chars)];
}

function answer(sql: string): FakeOracleAnswer {
  const known = catalog(sql);
  if (known !== undefined) return known;
  const columns = ['ID', 'BODY'];
  if (sql.includes('"DOCS"')) return { columns, rows: docs(1_000, 20_000) };
  if (sql.includes('"NOTES"')) return { columns, rows: docs(5_000, 10) };
  if (sql.includes('"HUGE"'))
    return {
      columns,
      rows: [
        ['1', 'a'],
        ['2', 'h'.repeat(50_000)],
        ['3', 'c'],
      ],
    };
  return { columns: ['ID'], rows: [['1'], ['2']] };
}

const budget = (batchBytes: number, remaining = Number.MAX_SAFE_INTEGER): ReadBudget => ({
  batchBytes,
  batchRows: 2_000,
  remainingBytes: () => remaining,
});

describe('Oracle fetch sizes', () => {
  it('estimates a fetch from its raw values and refuses one holding a value larger than the result may still take', () => {
    expect(
      fetchedBytes(
        [
          ['1', 'abc'],
          ['22', null],
        ],
        budget(1_000),
        'T',
      ),
    ).toBe(1 + 3 + 2);
    expect(() => fetchedBytes([['1', 'x'.repeat(101)]], budget(1_000, 100), 'T')).toThrow(ValueTooLargeError);
  });
});

describe('OracleSession round trips with a read budget (fake Oracle server)', () => {
  const connector = new OracleConnector();
  let server: FakeOracleServer;
  let session: ConnectorSession;
  let tables: ReadonlyMap<string, TableInfo>;

  beforeAll(async () => {
    server = await startFakeOracleServer({ password: FAKE_ORACLE_PASSWORD, answer });
    session = await connector.open(fakeOracleDatasource(server.port), { connectTimeoutMs: 5_000 });
    tables = (await session.discover([], new AbortController().signal)).tables;
  });

  afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  /** Reads a table; returns its batches and the rows each of its round trips asked for. */
  const read = async (name: string, readBudget?: ReadBudget): Promise<{ batches: RowBatch[]; asked: number[] }> => {
    const table = tables.get(name)!;
    const before = server.fetchSizes.length;
    const batches: RowBatch[] = [];
    for await (const batch of session.readRows({ table, columns: table.columns, budget: readBudget }, new AbortController().signal))
      batches.push(batch);
    return { batches, asked: server.fetchSizes.slice(before) };
  };
  const rowsOf = (batches: readonly RowBatch[]) => batches.reduce((n, b) => n + b.rowCount, 0);

  it('starts with FIRST_FETCH_ROWS in the execute itself, then asks for as many rows as fit batchBytes: few when values are big', async () => {
    const { batches, asked } = await read('DOCS', budget(256 * 1024));
    expect(rowsOf(batches)).toBe(1_000);
    // ~20 KB a row: 13 rows hold 256 KiB; the second fetch may grow only fourfold from the first.
    expect(asked.slice(0, 2)).toEqual([FIRST_FETCH_ROWS, 4 * FIRST_FETCH_ROWS]);
    expect(new Set(asked.slice(2))).toEqual(new Set([13]));
  });

  it('grows the round trips at most fourfold up to batchRows when values are small', async () => {
    const { batches, asked } = await read('NOTES');
    expect(rowsOf(batches)).toBe(5_000);
    expect(asked).toEqual([1, 4, 16, 64, 256, 1_024, 2_000, 2_000]);
  });

  it('fails the read with ValueTooLargeError (FET-1101) on a value larger than what the result may still hold, before rendering it', async () => {
    const seen: RowBatch[] = [];
    const reading = (async () => {
      const table = tables.get('HUGE')!;
      for await (const batch of session.readRows(
        { table, columns: table.columns, budget: budget(1 << 20, 20_000) },
        new AbortController().signal,
      ))
        seen.push(batch);
    })();
    await expect(reading).rejects.toBeInstanceOf(ValueTooLargeError);
    await expect(reading).rejects.toMatchObject({ code: FetCode.ResultTooLarge, message: expect.stringContaining("table 'HUGE'") });
    // Only row 1, fetched alone before anything was known of the rows, was handed on; the huge row never was.
    expect(rowsOf(seen)).toBe(1);
    const { batches } = await read('SMALL');
    expect(rowsOf(batches)).toBe(2);
  });

  it('reads the same value when the budget can hold it', async () => {
    const { batches } = await read('HUGE', budget(1 << 20, 1_000_000));
    expect(rowsOf(batches)).toBe(3);
  });
});
