import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { createTempMariaDatabase, resolvedMySqlDatasource, type TempMariaDatabase } from '../helpers/mariadb-database.js';
import {
  expectAbortedDiscoveryCancelled,
  expectOpenBoundedAfterLogin,
  expectSilentServerCannotHoldDiscovery,
  expectSilentServerCannotHoldRead,
  startSilentAfter,
} from '../helpers/session-scenarios.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Views over views: information_schema opens every view's whole chain, so the catalog takes seconds. */
const VIEW_CHAIN = 220;

describe('MySqlConnector deadlines', () => {
  const connector = new MySqlConnector();
  let db: TempMariaDatabase;
  let proxy: TcpProxy | undefined;
  let session: ConnectorSession | undefined;

  beforeAll(async () => {
    db = await createTempMariaDatabase('my_deadlines');
    await db.query(`
      CREATE TABLE big (id INT PRIMARY KEY, label VARCHAR(200));
      INSERT INTO big SELECT seq, REPEAT(MD5(seq), 4) FROM seq_1_to_300000;
      CREATE TABLE small (id INT PRIMARY KEY);
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

  const throughProxy = async (target = db): Promise<ConnectorSession> => {
    proxy = await startTcpProxy(target.port, target.host);
    session = await connector.open(resolvedMySqlDatasource(target, { host: '127.0.0.1', port: proxy.port }), { connectTimeoutMs: 5_000 });
    return session;
  };

  it('gives up a discovery on a server gone silent within its deadline plus the abort budget', async () => {
    await expectSilentServerCannotHoldDiscovery(await throughProxy(), proxy!, null);
  });

  it('gives up a read on a server gone silent mid-stream within the abort budget', async () => {
    const s = await throughProxy();
    const big = (await s.discover(null, new AbortController().signal)).tables.get('big')!;
    await expectSilentServerCannotHoldRead(s, proxy!, big);
  });

  it('fails an open whose session setup is never answered, on the connect timeout or at once on abort', async () => {
    const silent = await startSilentAfter(db.port, 'SET SESSION time_zone');
    try {
      await expectOpenBoundedAfterLogin(connector, resolvedMySqlDatasource(db, { host: '127.0.0.1', port: silent.port }));
    } finally {
      await silent.close();
    }
  });

  it('rejects an already aborted discovery before sending anything', async () => {
    session = await connector.open(resolvedMySqlDatasource(db), { connectTimeoutMs: 5_000 });
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(session.discover(null, controller.signal)).rejects.toThrow('too late');
    expect((await session.discover(null, new AbortController().signal)).tables.has('small')).toBe(true);
  });

  describe('with a discovery made slow', () => {
    let slow: TempMariaDatabase;

    beforeAll(async () => {
      slow = await createTempMariaDatabase('my_slow_catalog');
      const views = Array.from({ length: VIEW_CHAIN }, (_, i) => `CREATE VIEW v${i + 1} AS SELECT id FROM ${i === 0 ? 'small' : `v${i}`};`);
      await slow.query(`CREATE TABLE small (id INT PRIMARY KEY); INSERT INTO small VALUES (1), (2); ${views.join(' ')}`);
    }, 120_000);

    afterAll(async () => {
      await slow?.drop();
    });

    it('kills the catalog query on the server when aborted, and the session stays usable', async () => {
      session = await connector.open(resolvedMySqlDatasource(slow), { connectTimeoutMs: 5_000 });
      const small = { schema: null, name: 'small', key: 'small', columns: [{ name: 'id', dataType: 'int(11)' }], primaryKey: ['id'] };
      const running = async (): Promise<boolean> => {
        const rows = await slow.query<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
           WHERE ID <> CONNECTION_ID() AND COMMAND = 'Query' AND INFO LIKE '%information_schema.TABLES t%' AND DB = DATABASE()`,
        );
        return Number(rows[0].n) > 0;
      };
      await expectAbortedDiscoveryCancelled(session, null, small, running);
    });
  });
});
