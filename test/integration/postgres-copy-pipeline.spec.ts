import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { resolvedDatasource, TEST_PG, useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

type Filters = Record<string, Record<string, unknown[]>>;

/**
 * A filtered read on the COPY path: the statement binding its values and the COPY leave in one
 * write and share one implicit transaction, so the read costs the source one round trip, its
 * settings end with it, and a value the column's type refuses fails the read before the COPY runs
 * and leaves the session as usable as before. The proxy counts what the client sends.
 */
describe('PostgreSQL COPY with bound values, as one pipeline', () => {
  const db = useTempDatabase('pg_copy_pipeline');
  let proxy: TcpProxy;
  let clientWrites = 0;
  const sessions: ConnectorSession[] = [];

  beforeAll(async () => {
    await db().query(
      `CREATE TABLE items (id int PRIMARY KEY, label text, at timestamptz);
       INSERT INTO items SELECT g, 'item ' || g, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 hour' FROM generate_series(1, 500) g;`,
    );
    proxy = await startTcpProxy(TEST_PG.port, TEST_PG.host, {
      rewriteClient: (chunk) => {
        clientWrites += 1;
        return chunk;
      },
    });
  });

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    await proxy?.close();
  });

  const open = async (): Promise<{ session: ConnectorSession; table: TableInfo }> => {
    const connector = new PostgresConnector('copy', { warn: () => undefined });
    const session = await connector.open(resolvedDatasource(db(), { id: '00000000-0000-4000-8000-00000000c0de', port: proxy.port }), {
      connectTimeoutMs: 5_000,
    });
    sessions.push(session);
    const table = (await session.discover(['public'], new AbortController().signal)).tables.get('items') as TableInfo;
    return { session, table };
  };

  const read = async (session: ConnectorSession, table: TableInfo, filters: Filters): Promise<{ id: number; label: string }[]> => {
    const parts: string[] = [];
    for await (const batch of session.readRows(
      { table, columns: table.columns, filters },
      new AbortController().signal,
    ) as AsyncIterable<RowBatch>)
      parts.push(batch.json.toString('utf8'));
    return JSON.parse(`[${parts.join(',')}]`) as { id: number; label: string }[];
  };

  it('reads a filtered table in one round trip, with the values bound, never spliced into the SQL', async () => {
    const { session, table } = await open();
    clientWrites = 0;
    const rows = await read(session, table, { id: { between: [10, 14] }, label: { in: ["item 12'; DROP TABLE items; --", 'item 13'] } });
    expect(rows.map((row) => row.id)).toEqual([13]);
    expect(clientWrites).toBe(1);
    expect(session.reusable).toBe(true);
    // Nothing was dropped, and the next read on the same session sees the whole range again.
    expect((await read(session, table, { id: { between: [10, 14] } })).map((row) => row.id)).toEqual([10, 11, 12, 13, 14]);
  });

  it('leaves no setting of a read behind for the next statement of the session', async () => {
    const { session, table } = await open();
    expect((await read(session, table, { label: { eq: ['item 7'] } })).map((row) => row.id)).toEqual([7]);
    // Asked on the session's own connection: the transaction-local setting ended with the pipeline.
    const client = (session as unknown as { client: pg.Client }).client;
    const { rows } = await client.query<{ value: string | null }>(`SELECT current_setting('fetcher.p1', true) AS value`);
    expect(rows[0].value ?? '').toBe('');
  });

  it('fails a value its column refuses before the COPY runs, and the session reads on as before', async () => {
    const { session, table } = await open();
    await expect(read(session, table, { id: { gt: ['twelve'] } })).rejects.toThrow(/invalid input syntax for type integer/);
    expect(session.reusable).toBe(false);
    clientWrites = 0;
    expect((await read(session, table, { at: { lt: ['2026-01-01T03:00:00Z'] } })).map((row) => row.id)).toEqual([1, 2]);
    expect(clientWrites).toBe(1);
  });
});
