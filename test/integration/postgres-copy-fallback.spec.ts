import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import Cursor from 'pg-cursor';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import type { EngineLogger } from '../../src/engine/support/engine-logger.js';
import { resolvedDatasource, TEST_PG, useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const COPY = Buffer.from('COPY (');

/**
 * A server (or proxy) without `COPY (query) TO STDOUT`: the proxy turns our COPY into `COPX (…`,
 * which PostgreSQL refuses as a syntax error, as such a server would. Everything else passes.
 */
describe('PostgreSQL read path fallback', () => {
  const db = useTempDatabase('pg_copy_fallback');
  let proxy: TcpProxy;
  let copyAttempts = 0;
  const sessions: ConnectorSession[] = [];

  beforeAll(async () => {
    await db().query(
      `CREATE TABLE items (id int PRIMARY KEY, label text); INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 3000) g;`,
    );
    proxy = await startTcpProxy(TEST_PG.port, TEST_PG.host, {
      rewriteClient: (chunk) => {
        const at = chunk.indexOf(COPY);
        if (at < 0) return chunk;
        copyAttempts += 1;
        const changed = Buffer.from(chunk);
        changed[at + 3] = 0x58; // X
        return changed;
      },
    });
  });

  // The fallback's warning, recorded rather than printed.
  let warn: Mock<EngineLogger['warn']>;
  let logger: EngineLogger;
  beforeEach(() => {
    warn = vi.fn();
    logger = { warn };
  });

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await proxy?.close();
  });

  const open = async (
    connector: PostgresConnector,
    id: string,
    port = proxy.port,
  ): Promise<{ session: ConnectorSession; table: TableInfo }> => {
    const session = await connector.open(resolvedDatasource(db(), { id, port }), { connectTimeoutMs: 5_000 });
    sessions.push(session);
    const table = (await session.discover(['public'], new AbortController().signal)).tables.get('items') as TableInfo;
    return { session, table };
  };

  const ids = async (
    session: ConnectorSession,
    table: TableInfo,
    filters?: Record<string, { gt?: number[]; in?: number[] }>,
  ): Promise<number[]> => {
    const parts: string[] = [];
    for await (const batch of session.readRows(
      { table, columns: table.columns, filters },
      new AbortController().signal,
    ) as AsyncIterable<RowBatch>)
      parts.push(batch.json.toString('utf8'));
    return (JSON.parse(`[${parts.join(',')}]`) as { id: number }[]).map((r) => r.id);
  };

  it('falls back to a cursor on the first refusal, without losing or repeating a row, and says so once', async () => {
    const connector = new PostgresConnector('copy', logger);
    const { session, table } = await open(connector, '00000000-0000-4000-8000-00000000f001');
    copyAttempts = 0;
    expect(await ids(session, table)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(copyAttempts).toBe(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/refused COPY.*SQLSTATE 42601.*cursor from now on/);
  });

  it('remembers the refusal per connection: its later reads and sessions go straight to the cursor', async () => {
    const connector = new PostgresConnector('copy', logger);
    const id = '00000000-0000-4000-8000-00000000f002';
    const first = await open(connector, id);
    copyAttempts = 0;
    // Filter values travel in the COPY's pipeline; the refusal leaves it cleanly.
    expect(await ids(first.session, first.table, { id: { gt: [2990] } })).toEqual([
      2991, 2992, 2993, 2994, 2995, 2996, 2997, 2998, 2999, 3000,
    ]);
    expect(await ids(first.session, first.table, { id: { in: [5, 7] } })).toEqual([5, 7]);
    const second = await open(connector, id);
    expect((await ids(second.session, second.table)).length).toBe(3000);
    expect(copyAttempts).toBe(1);

    // Another connection record, and the same database reached directly, still use COPY.
    const other = await open(connector, '00000000-0000-4000-8000-00000000f003');
    expect((await ids(other.session, other.table)).length).toBe(3000);
    expect(copyAttempts).toBe(2);
  });

  it('does not fall back on a failure of the query itself', async () => {
    const connector = new PostgresConnector('copy', logger);
    const direct = await open(connector, '00000000-0000-4000-8000-00000000f004', TEST_PG.port);
    await db().query('CREATE TABLE doomed (id int PRIMARY KEY)');
    const doomed = (await direct.session.discover(['public'], new AbortController().signal)).tables.get('doomed') as TableInfo;
    await db().query('DROP TABLE doomed');
    await expect(ids(direct.session, doomed)).rejects.toThrow(/relation "public.doomed" does not exist \(SQLSTATE 42P01\)/);
    // The connection was not marked: its next read goes through COPY again, and works.
    const cursorReads = vi.spyOn(Cursor.prototype, 'read');
    expect((await ids(direct.session, direct.table)).length).toBe(3000);
    expect(cursorReads).not.toHaveBeenCalled();
  });
});
