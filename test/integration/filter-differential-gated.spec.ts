import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { OracleConnector } from '../../src/engine/connectors/oracle/oracle.connector.js';
import { SqlServerConnector } from '../../src/engine/connectors/sqlserver/sqlserver.connector.js';
import {
  createTempOracleSchema,
  ORACLE_SKIP_REASON,
  parseOracleUrl,
  resolvedOracleDatasource,
  TEST_ORACLE_URL,
} from '../helpers/oracle-database.js';
import {
  createTempSqlServerDatabase,
  parseSqlServerUrl,
  resolvedSqlServerDatasource,
  SQLSERVER_SKIP_REASON,
  TEST_MSSQL_URL,
} from '../helpers/sqlserver-database.js';
import { FILTER_CASES, FILTER_ITEMS, type FilterCase } from './filter-cases.js';

/**
 * The differential filter cases on servers that cannot run here: SQL Server and Oracle, when
 * TEST_MSSQL_URL / TEST_ORACLE_URL point at one (docker/compose.yml starts both).
 */
interface Prepared {
  session: ConnectorSession;
  table: TableInfo;
  column(name: string): string;
  cleanup(): Promise<void>;
}

/** Oracle stores '' as NULL (no driver can change that): these cases see row 9's '' as NULL there. */
const ORACLE_EMPTY_IS_NULL: Record<string, number[]> = {
  'eq empty text is not NULL': [],
  'eq [null] on text': [4, 9],
  'ne [null] on text': [1, 2, 3, 5, 6, 7, 8, 10],
  'in with null matches NULL too': [2, 4, 6, 9],
  'nin texts leaves NULLs out': [5, 7, 10],
  'nin with null': [2, 5, 6, 7, 10],
  'like % matches everything not NULL': [1, 2, 3, 4, 5, 6, 7, 8, 10],
  'like empty pattern': [],
};

const readIds = async (batches: AsyncIterable<RowBatch>, key: string): Promise<number[]> => {
  const parts: string[] = [];
  for await (const batch of batches) parts.push(batch.json.toString('utf8'));
  return (JSON.parse(`[${parts.join(',')}]`) as Record<string, number>[]).map((row) => row[key]);
};

function suite(
  engine: string,
  url: string | undefined,
  skipReason: string,
  prepare: () => Promise<Prepared>,
  expected: (c: FilterCase) => readonly number[],
) {
  if (!url) {
    describe.skip(`differential filters on ${engine} — SKIPPED: ${skipReason}`, () => {
      it.skip('needs a server', () => undefined);
    });
    process.stdout.write(`\n[filter-differential] ${engine}: SKIPPED — ${skipReason}\n`);
    return;
  }
  describe(`differential filters on ${engine}`, () => {
    let prepared: Prepared;
    beforeAll(async () => {
      prepared = await prepare();
    }, 120_000);
    afterAll(async () => {
      await prepared?.session.close();
      await prepared?.cleanup();
    });
    it.each(FILTER_CASES)('$name', async (filterCase) => {
      const { session, table, column } = prepared;
      const filters = Object.fromEntries(Object.entries(filterCase.filters).map(([field, condition]) => [column(field), condition]));
      const ids = await readIds(
        session.readRows({ table, columns: table.columns.filter((c) => c.name === column('id')), filters }, new AbortController().signal),
        column('id'),
      );
      expect(ids).toEqual(expected(filterCase));
    });
  });
}

suite(
  'SQL Server',
  TEST_MSSQL_URL,
  SQLSERVER_SKIP_REASON,
  async () => {
    const db = await createTempSqlServerDatabase(parseSqlServerUrl(TEST_MSSQL_URL as string), 'filters');
    // A case-sensitive collation: like and equality behave as on PostgreSQL (docs/api.md, "Filters").
    await db.run(`CREATE TABLE dbo.items (id int PRIMARY KEY, label nvarchar(64) COLLATE Latin1_General_100_CS_AS, amount decimal(10,2), qty int,
    active bit, day date, at datetime2(3), category nvarchar(8) COLLATE Latin1_General_100_CS_AS)`);
    for (const item of FILTER_ITEMS) {
      await db.query('INSERT INTO dbo.items VALUES (@id, @label, @amount, @qty, @active, @day, @at, @category)', {
        ...item,
        amount: item.amount,
      });
    }
    const session = await new SqlServerConnector().open(resolvedSqlServerDatasource(db), { connectTimeoutMs: 15_000 });
    const table = (await session.discover(['dbo'], new AbortController().signal)).tables.get('items') as TableInfo;
    return { session, table, column: (name) => name, cleanup: () => db.drop() };
  },
  (c) => c.ids,
);

suite(
  'Oracle',
  TEST_ORACLE_URL,
  ORACLE_SKIP_REASON,
  async () => {
    const schema = await createTempOracleSchema(parseOracleUrl(TEST_ORACLE_URL as string));
    const name = schema.name('ITEMS');
    await schema.execute(`CREATE TABLE "${name}" (ID NUMBER(10) PRIMARY KEY, LABEL VARCHAR2(64), AMOUNT NUMBER(10,2), QTY NUMBER(10),
    ACTIVE NUMBER(1), DAY DATE, AT TIMESTAMP(3), CATEGORY VARCHAR2(8))`);
    for (const item of FILTER_ITEMS) {
      await schema.execute(
        `INSERT INTO "${name}" VALUES (:1, :2, TO_NUMBER(:3), :4, :5, TO_DATE(:6, 'YYYY-MM-DD'), TO_TIMESTAMP(:7, 'YYYY-MM-DD HH24:MI:SS.FF'), :8)`,
        [
          item.id,
          item.label,
          item.amount,
          item.qty,
          item.active === null ? null : Number(item.active),
          item.day,
          item.at && (item.at.includes('.') ? item.at : `${item.at}.0`),
          item.category,
        ],
      );
    }
    const session = await new OracleConnector().open(resolvedOracleDatasource(schema.server), { connectTimeoutMs: 15_000 });
    const table = (await session.discover([schema.owner], new AbortController().signal)).tables.get(name) as TableInfo;
    return { session, table, column: (field) => field.toUpperCase(), cleanup: () => schema.drop() };
  },
  (c) => ORACLE_EMPTY_IS_NULL[c.name] ?? c.ids,
);
