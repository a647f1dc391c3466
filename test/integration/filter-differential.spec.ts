import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { createTempMariaDatabase, resolvedMySqlDatasource } from '../helpers/mariadb-database.js';
import { createTempDatabase, PG_READ_PATHS, resolvedDatasource } from '../helpers/pg-database.js';
import { FILTER_CASES, FILTER_ITEMS } from './filter-cases.js';

const ids = async (batches: AsyncIterable<RowBatch>): Promise<number[]> => {
  const parts: string[] = [];
  for await (const batch of batches) parts.push(batch.json.toString('utf8'));
  return (JSON.parse(`[${parts.join(',')}]`) as { id: number }[]).map((row) => row.id);
};

interface Engine {
  readonly name: string;
  setup(): Promise<{ session: ConnectorSession; table: TableInfo; cleanup: () => Promise<void> }>;
}

const engines: Engine[] = [
  ...PG_READ_PATHS.map((readPath) => ({
    name: `PostgreSQL (${readPath} path)`,
    async setup() {
      const db = await createTempDatabase('filters');
      await db.query(
        `CREATE TABLE items (id int PRIMARY KEY, label text, amount numeric(10,2), qty int, active boolean, day date, at timestamp(3), category text)`,
      );
      for (const item of FILTER_ITEMS) {
        await db.query('INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
          item.id,
          item.label,
          item.amount,
          item.qty,
          item.active,
          item.day,
          item.at,
          item.category,
        ]);
      }
      const session = await new PostgresConnector(readPath).open(resolvedDatasource(db), { connectTimeoutMs: 5_000 });
      const table = (await session.discover(['public'], new AbortController().signal)).tables.get('items') as TableInfo;
      return { session, table, cleanup: () => db.drop() };
    },
  })),
  {
    name: 'MariaDB',
    async setup() {
      const db = await createTempMariaDatabase('filters');
      // A binary collation: LIKE and equality are case-sensitive, as on PostgreSQL (docs/api.md, "Filters").
      await db.query(`CREATE TABLE items (id INT PRIMARY KEY, label VARCHAR(64) COLLATE utf8mb4_bin, amount DECIMAL(10,2), qty INT,
        active TINYINT(1), day DATE, at DATETIME(3), category VARCHAR(8) COLLATE utf8mb4_bin) CHARACTER SET utf8mb4`);
      for (const item of FILTER_ITEMS) {
        await db.query('INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
          item.id,
          item.label,
          item.amount,
          item.qty,
          item.active === null ? null : Number(item.active),
          item.day,
          item.at,
          item.category,
        ]);
      }
      const session = await new MySqlConnector().open(resolvedMySqlDatasource(db), { connectTimeoutMs: 5_000 });
      const table = (await session.discover([], new AbortController().signal)).tables.get('items') as TableInfo;
      return { session, table, cleanup: () => db.drop() };
    },
  },
];

describe.each(engines)('differential filters on $name', (engine) => {
  let session: ConnectorSession;
  let table: TableInfo;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ session, table, cleanup } = await engine.setup());
  });
  afterAll(async () => {
    await session?.close();
    await cleanup?.();
  });

  it(`has at least 40 cases covering all ten operators`, () => {
    expect(FILTER_CASES.length).toBeGreaterThanOrEqual(40);
    const operators = new Set(FILTER_CASES.flatMap((c) => Object.values(c.filters).flatMap((condition) => Object.keys(condition))));
    expect([...operators].sort()).toEqual(['between', 'eq', 'gt', 'gte', 'in', 'like', 'lt', 'lte', 'ne', 'nin']);
  });

  it.each(FILTER_CASES)('$name', async ({ filters, ids: expected }) => {
    const id = table.columns.filter((column) => column.name === 'id');
    expect(await ids(session.readRows({ table, columns: id, filters }, new AbortController().signal))).toEqual(expected);
  });
});
