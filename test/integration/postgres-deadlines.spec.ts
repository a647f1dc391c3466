import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { createTempDatabase, PG_READ_PATHS, resolvedDatasource, type TempDatabase } from '../helpers/pg-database.js';
import {
  expectAbortedDiscoveryCancelled,
  expectOpenBoundedAfterLogin,
  expectSilentServerCannotHoldDiscovery,
  expectSilentServerCannotHoldRead,
  startSilentAfter,
} from '../helpers/session-scenarios.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Domains over domains: the discovery's domain-chain CTE then takes seconds (N² rows). */
const DOMAIN_CHAIN = 4_000;

describe.each(PG_READ_PATHS)('PostgresConnector deadlines (%s path)', (readPath) => {
  const connector = new PostgresConnector(readPath);
  let db: TempDatabase;
  let proxy: TcpProxy | undefined;
  let session: ConnectorSession | undefined;

  beforeAll(async () => {
    db = await createTempDatabase('pg_deadlines');
    await db.query(`
      CREATE TABLE big (id int PRIMARY KEY, label text);
      INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 300000) g;
      CREATE TABLE small (id int PRIMARY KEY);
      INSERT INTO small VALUES (1), (2);
    `);
  });

  afterEach(async () => {
    await session?.close();
    await proxy?.close();
    session = undefined;
    proxy = undefined;
  });

  afterAll(async () => {
    await db?.drop();
  });

  const throughProxy = async (): Promise<ConnectorSession> => {
    proxy = await startTcpProxy(db.port, db.host);
    session = await connector.open(resolvedDatasource(db, { host: '127.0.0.1', port: proxy.port }), { connectTimeoutMs: 5_000 });
    return session;
  };

  it('gives up a discovery on a server gone silent within its deadline plus the abort budget', async () => {
    await expectSilentServerCannotHoldDiscovery(await throughProxy(), proxy!, ['public']);
  });

  it('gives up a read on a server gone silent mid-stream within the abort budget', async () => {
    const s = await throughProxy();
    const big = (await s.discover(['public'], new AbortController().signal)).tables.get('big')!;
    await expectSilentServerCannotHoldRead(s, proxy!, big);
  });

  it('fails an open whose session setup is never answered, on the connect timeout or at once on abort', async () => {
    const silent = await startSilentAfter(db.port, "set_config('TimeZone'");
    try {
      await expectOpenBoundedAfterLogin(connector, resolvedDatasource(db, { host: '127.0.0.1', port: silent.port }));
    } finally {
      await silent.close();
    }
  });

  it('rejects an already aborted discovery before sending anything', async () => {
    session = await connector.open(resolvedDatasource(db), { connectTimeoutMs: 5_000 });
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(session.discover(['public'], controller.signal)).rejects.toThrow('too late');
    expect((await session.discover(['public'], new AbortController().signal)).tables.has('small')).toBe(true);
  });

  describe('with a discovery made slow', () => {
    let slow: TempDatabase;

    beforeAll(async () => {
      slow = await createTempDatabase('pg_slow_catalog');
      await slow.query(`
        CREATE TABLE small (id int PRIMARY KEY);
        INSERT INTO small VALUES (1), (2);
        CREATE DOMAIN d0 AS int;
        DO $$ BEGIN FOR i IN 1..${DOMAIN_CHAIN} LOOP EXECUTE format('CREATE DOMAIN d%s AS d%s', i, i - 1); END LOOP; END $$;
      `);
    });

    afterAll(async () => {
      await slow?.drop();
    });

    it('cancels the catalog query on the server when aborted, and the session stays usable', async () => {
      session = await connector.open(resolvedDatasource(slow), { connectTimeoutMs: 5_000 });
      // The table as discovery describes it, without running the slow discovery first.
      const small: TableInfo = {
        schema: 'public',
        name: 'small',
        key: 'small',
        columns: [{ name: 'id', dataType: 'integer', engineType: { typeOid: 23, category: 'N', castType: 'integer' } }],
        primaryKey: ['id'],
      };
      const running = async (): Promise<boolean> => {
        const { rows } = await slow.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%domain_chain%'`,
        );
        return Number(rows[0].n) > 0;
      };
      await expectAbortedDiscoveryCancelled(session, ['public'], small, running);
    });
  });
});
