import { afterEach, describe, expect, it } from 'vitest';
import { CatalogTooLargeError } from '../../errors/engine-errors.js';
import { FetCode } from '../../errors/fet-code.js';
import { CatalogBudget } from '../shared/catalog-budget.js';
import { rejection } from '../testing/timing.js';
import type { SqlServerSession } from './sqlserver-session.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { fakeDatasource } from './testing/fake-datasource.js';
import { catalogAnswer, startFakeTdsServer, type FakeTdsServer, type FakeValue } from './testing/fake-tds-server.js';

/** Catalog rows without end: a new column of a new table every row. */
function* endless(): Generator<FakeValue[]> {
  for (let i = 0; ; i++) yield ['dbo', `table_${Math.floor(i / 50)}`, `column_${i}`, (i % 50) + 1, 'int', 'int', false, 4, 10, 0, null];
}

describe('SqlServerSession discovery byte budget (fake TDS server)', () => {
  const connector = new SqlServerConnector();
  let server: FakeTdsServer | undefined;
  let session: SqlServerSession | undefined;

  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = undefined;
    server = undefined;
  });

  const start = async (rows: Iterable<FakeValue[]>) => {
    server = await startFakeTdsServer({
      answer: (sql) => (sql.includes('@@SPID') ? { columns: [{ name: '', type: 'int' }], rows: [[57]] } : catalogAnswer(rows)),
    });
    session = (await connector.open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
    return session;
  };

  it('stops an endless catalog at the budget with FET-1044 and cuts the connection', async () => {
    const s = await start(endless());
    const { error } = await rejection(s.discover(null, new AbortController().signal, new CatalogBudget(256 * 1024, 'mssql')));
    expect(error).toBeInstanceOf(CatalogTooLargeError);
    expect((error as CatalogTooLargeError).code).toBe(FetCode.SchemaCatalogTooLarge);
    await expect(s.discover(null, new AbortController().signal)).rejects.toMatchObject({
      name: 'DatasourceQueryError',
      message: 'Connection lost: the schema catalog passed its byte budget; connection closed',
    });
  });

  it('discovers a catalog within the budget as before', async () => {
    const rows = Array.from({ length: 120 }, (_, i): FakeValue[] => [
      'dbo',
      `t${Math.floor(i / 40)}`,
      `c${i}`,
      (i % 40) + 1,
      'int',
      'int',
      false,
      4,
      10,
      0,
      null,
    ]);
    const s = await start(rows);
    const snapshot = await s.discover(null, new AbortController().signal, new CatalogBudget(256 * 1024, 'mssql'));
    expect([...snapshot.tables.keys()]).toEqual(['t0', 't1', 't2']);
  });
});
