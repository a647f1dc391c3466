import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import type { FilterCondition } from '../../src/engine/request/data-request.js';
import { PG_READ_PATHS, resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';
import { keptIds } from '../../src/engine/connectors/testing/batch-reading.js';
import { NULL_AWARE_EQ_NE_CASES } from './filter-cases.js';

describe.each(PG_READ_PATHS)('PostgresConnector filters against PostgreSQL (%s path)', (readPath) => {
  const connector = new PostgresConnector(readPath);
  const db = useTempDatabase('pg_filters');
  let session: ConnectorSession;
  let items: TableInfo;

  beforeAll(async () => {
    await db().query(`
      CREATE TABLE items (
        id int PRIMARY KEY, n int, name text, at timestamptz, amount numeric(10, 2), tag varchar(3), code char(3), ok bool
      );
      INSERT INTO items VALUES
        (1, 10, 'alpha',   '2024-01-01 00:00:00+00', 1.50,  'x',  'ab', true),
        (2, 20, 'beta',    '2024-01-02 12:00:00+00', 2.00,  'y',  'cd', false),
        (3, NULL, 'gamma', '2024-01-03 00:00:00+00', 3.25,  NULL, 'ab', NULL),
        (4, 40, 'Alpha_1', NULL,                      10.00, 'x',  NULL, true),
        (5, 50, '100%',    '2024-02-01 00:00:00+00', 0.00,  'z',  'ef', false);
    `);
    session = await connector.open(resolvedDatasource(db()), { connectTimeoutMs: 5_000 });
    items = (await session.discover(['public'], new AbortController().signal)).tables.get('items')!;
  });

  afterAll(async () => {
    await session?.close();
  });

  const ids = (filters: Record<string, FilterCondition>): Promise<number[]> => keptIds(session, items, filters);

  it.each<[string, Record<string, FilterCondition>, number[]]>([
    ...NULL_AWARE_EQ_NE_CASES,
    ['gt on a timestamptz with a date string', { at: { gt: ['2024-01-02'] } }, [2, 3, 5]],
    ['gte on numeric with a string', { amount: { gte: ['2.00'] } }, [2, 3, 4]],
    ['lt on int', { n: { lt: [20] } }, [1]],
    ['lte on int with a numeric string', { n: { lte: ['20'] } }, [1, 2]],
    ['between, inclusive on both ends', { at: { between: ['2024-01-02 12:00:00+00', '2024-02-01'] } }, [2, 3, 5]],
    ['in', { tag: { in: ['x', 'z'] } }, [1, 4, 5]],
    ['in with null matches the values or NULL', { tag: { in: ['x', null] } }, [1, 3, 4]],
    ['nin', { tag: { nin: ['x'] } }, [2, 5]],
    ['nin with null matches neither', { tag: { nin: ['x', null] } }, [2, 5]],
    ['like, case-sensitive, % wildcard', { name: { like: ['alpha%'] } }, [1]],
    ['like, _ wildcard', { name: { like: ['_lpha%'] } }, [1, 4]],
    ['like, escaped % literal', { name: { like: ['%\\%'] } }, [5]],
    ['like on a non-text column (matched on its text)', { n: { like: ['_0'] } }, [1, 2, 4, 5]],
    ['eq on numeric(10,2) is exact (no rounding of the value)', { amount: { eq: ['1.501'] } }, []],
    ['eq on numeric with another scale', { amount: { eq: [1.5] } }, [1]],
    ['eq on varchar(3) does not cut the value', { tag: { eq: ['xyz_long'] } }, []],
    ['eq on char(3) ignores padding', { code: { eq: ['ab'] } }, [1, 3]],
    ['eq on bool', { ok: { eq: [false] } }, [2, 5]],
    ['operators on one field are ANDed', { n: { gte: [10], lt: [50], ne: [20] } }, [1, 4]],
    ['fields are ANDed', { tag: { eq: ['x'] }, ok: { eq: [true] }, n: { gt: [10] } }, [4]],
    ['a filtered column need not be projected', { name: { eq: ['gamma'] } }, [3]],
  ])('%s', async (_label, filters, expected) => {
    expect(await ids(filters)).toEqual(expected);
  });

  it('reports a value the column type cannot take as a query error', async () => {
    await expect(ids({ n: { eq: ['not a number'] } })).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: expect.stringContaining('invalid input syntax for type integer'),
    });
  });
});
