import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import type { FilterCondition } from '../../src/engine/request/data-request.js';
import { resolvedMySqlDatasource, useTempMariaDatabase } from '../helpers/mariadb-database.js';
import { keptIds } from '../../src/engine/connectors/testing/batch-reading.js';
import { NULL_AWARE_EQ_NE_CASES } from './filter-cases.js';

/** The dataset and most cases of the PostgreSQL filter suite: same filter, same rows. */
describe('MySqlConnector filters against MariaDB', () => {
  const connector = new MySqlConnector();
  const db = useTempMariaDatabase('my_filters');
  let session: ConnectorSession;
  let items: TableInfo;

  beforeAll(async () => {
    await db().query(`
      CREATE TABLE items (
        id INT PRIMARY KEY, n INT, name VARCHAR(20) COLLATE utf8mb4_bin, at TIMESTAMP(6) NULL, amount DECIMAL(10, 2),
        tag VARCHAR(3), code CHAR(3), ok BOOLEAN, big BIGINT UNSIGNED, day DATE, ci VARCHAR(10)
      );
      SET SESSION time_zone = '+00:00';
      INSERT INTO items VALUES
        (1, 10,   'alpha',   '2024-01-01 00:00:00', 1.50,  'x',  'ab', true,  9007199254740993, '2024-01-01', 'Hello'),
        (2, 20,   'beta',    '2024-01-02 12:00:00', 2.00,  'y',  'cd', false, 9007199254740992, '2024-01-02', 'hello'),
        (3, NULL, 'gamma',   '2024-01-03 00:00:00', 3.25,  NULL, 'ab', NULL,  18446744073709551615, '2024-01-03', NULL),
        (4, 40,   'Alpha_1', NULL,                  10.00, 'x',  NULL, true,  1, NULL, 'other'),
        (5, 50,   '100%',    '2024-02-01 00:00:00', 0.00,  'z',  'ef', false, 0, '2024-02-01', '5');
      SET SESSION time_zone = DEFAULT;
    `);
    session = await connector.open(resolvedMySqlDatasource(db()), { connectTimeoutMs: 5_000 });
    items = (await session.discover(null, new AbortController().signal)).tables.get('items')!;
  });

  afterAll(async () => {
    await session?.close();
  });

  const ids = (filters: Record<string, FilterCondition>): Promise<number[]> => keptIds(session, items, filters);

  it.each<[string, Record<string, FilterCondition>, number[]]>([
    ...NULL_AWARE_EQ_NE_CASES,
    ['gt on a TIMESTAMP with a date string', { at: { gt: ['2024-01-02'] } }, [2, 3, 5]],
    ['gt on a TIMESTAMP with an ISO offset (11:30 UTC)', { at: { gt: ['2024-01-02T13:30:00+02:00'] } }, [2, 3, 5]],
    ['lt on a TIMESTAMP with a Z suffix', { at: { lt: ['2024-01-02T12:00:00.000001Z'] } }, [1, 2]],
    ['gte on DECIMAL with a string', { amount: { gte: ['2.00'] } }, [2, 3, 4]],
    ['lt on INT', { n: { lt: [20] } }, [1]],
    ['lte on INT with a numeric string', { n: { lte: ['20'] } }, [1, 2]],
    ['between, inclusive on both ends', { at: { between: ['2024-01-02 12:00:00', '2024-02-01'] } }, [2, 3, 5]],
    ['between on DATE', { day: { between: ['2024-01-02', '2024-01-03'] } }, [2, 3]],
    ['in', { tag: { in: ['x', 'z'] } }, [1, 4, 5]],
    ['in with null matches the values or NULL', { tag: { in: ['x', null] } }, [1, 3, 4]],
    ['nin', { tag: { nin: ['x'] } }, [2, 5]],
    ['nin with null matches neither', { tag: { nin: ['x', null] } }, [2, 5]],
    ['like, case-sensitive under a binary collation, % wildcard', { name: { like: ['alpha%'] } }, [1]],
    ['like, _ wildcard', { name: { like: ['_lpha%'] } }, [1, 4]],
    ['like, escaped % literal', { name: { like: ['%\\%'] } }, [5]],
    ['like follows a case-insensitive collation', { ci: { like: ['hello'] } }, [1, 2]],
    ['like on a non-text column (matched on its text)', { n: { like: ['_0'] } }, [1, 2, 4, 5]],
    ['eq on DECIMAL(10,2) is exact (no rounding of the value)', { amount: { eq: ['1.501'] } }, []],
    ['eq on DECIMAL with another scale', { amount: { eq: [1.5] } }, [1]],
    ['eq on VARCHAR(3) does not cut the value', { tag: { eq: ['xyz_long'] } }, []],
    ['eq on a text column with a number compares as text', { ci: { eq: [5] } }, [5]],
    ['eq on BIGINT UNSIGNED beyond 2^53 is exact', { big: { eq: ['9007199254740993'] } }, [1]],
    ['gt on BIGINT UNSIGNED near its maximum', { big: { gt: ['18446744073709551614'] } }, [3]],
    ['eq on BOOLEAN', { ok: { eq: [false] } }, [2, 5]],
    ['eq on BOOLEAN with a text value', { ok: { eq: ['true'] } }, [1, 4]],
    ['operators on one field are ANDed', { n: { gte: [10], lt: [50], ne: [20] } }, [1, 4]],
    ['fields are ANDed', { tag: { eq: ['x'] }, ok: { eq: [true] }, n: { gt: [10] } }, [4]],
    ['a filtered column need not be projected', { name: { eq: ['gamma'] } }, [3]],
    ['a value is never SQL', { name: { eq: ["x' OR '1'='1"] } }, []],
  ])('%s', async (_label, filters, expected) => {
    expect(await ids(filters)).toEqual(expected);
  });
});
