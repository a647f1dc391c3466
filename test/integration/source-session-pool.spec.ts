import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { DatasourceDescriptor } from '../../src/engine/datasources/datasource-descriptor.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { PING_TIMEOUT_MS } from '../../src/engine/sessions/session-pool.js';
import { TEST_SECRETS } from '../helpers/test-secrets.js';

/**
 * The engine's session pool against a real PostgreSQL: which backend served an extraction is
 * read from a view that answers pg_backend_pid(), so every assertion is about the server's own
 * sessions, not the pool's bookkeeping.
 */
describe('pooled source sessions (PostgreSQL)', () => {
  const db = useTempDatabase('session_pool');
  let engine: Engine;

  beforeAll(async () => {
    await db().query(`
      CREATE VIEW serving_backend AS SELECT 1 AS id, pg_backend_pid() AS pid;
      CREATE TABLE orders (id int PRIMARY KEY, amount numeric(12,2));
      INSERT INTO orders SELECT g, g * 1.25 FROM generate_series(1, 50000) g;`);
  });

  afterEach(async () => {
    await engine?.close();
  });

  afterAll(async () => {});

  const descriptor = (overrides: Partial<DatasourceDescriptor> = {}): DatasourceDescriptor => ({
    type: 'POSTGRESQL',
    host: db().host,
    port: db().port,
    databaseName: db().name,
    userName: db().user,
    password: db().password,
    id: 'conn-ledger',
    reuseScope: 'ledger@2026-03-01T10:00:00.000Z',
    ...overrides,
  });

  /** The backend pid that served one extraction of the view. */
  const servedBy = async (source: DatasourceDescriptor, filters?: object): Promise<number> => {
    const result = await engine.extract({
      datasources: { pg: source },
      dataRequest: { mappedFields: { pg: { serving_backend: ['pid'] } }, ...(filters ? { filters } : {}) },
    });
    const document = JSON.parse(result.bytes!.toString('utf8')) as { pg: { serving_backend: { pid: number }[] } };
    return document.pg.serving_backend[0].pid;
  };

  const sessionsOnServer = async (): Promise<number> => {
    const { rows } = await db().query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'fetcher' AND pid <> pg_backend_pid()`,
      [db().name],
    );
    return Number(rows[0].n);
  };

  it('serves the next extraction and connection test of the same datasource from the session the last one left', async () => {
    engine = createEngine({ sessionPool: { maxIdlePerDatasource: 2, idleMs: 30_000 } });
    const first = await servedBy(descriptor());
    expect(await servedBy(descriptor())).toBe(first);
    // A filter's values are bound in a read-only transaction: it ends committed, and the session is reused.
    expect(await servedBy(descriptor(), { pg: { serving_backend: { id: { eq: [1] } } } })).toBe(first);
    expect(await servedBy(descriptor())).toBe(first);
    const resolved = await engine.resolve('pg', descriptor());
    expect(await engine.testDatasource(resolved, 5_000)).toMatchObject({ ok: true });
    expect(await servedBy(descriptor())).toBe(first);
    expect(await sessionsOnServer()).toBe(1);
  });

  it('never hands a session to another product, another version of the connection or other credentials', async () => {
    engine = createEngine({ sessionPool: { maxIdlePerDatasource: 2, idleMs: 30_000 } });
    const ledger = await servedBy(descriptor());
    const payments = await servedBy(descriptor({ reuseScope: 'payments@2026-03-01T10:00:00.000Z' }));
    const patched = await servedBy(descriptor({ reuseScope: 'ledger@2026-03-01T10:05:00.000Z' }));
    const otherLogin = await servedBy(descriptor({ password: TEST_SECRETS.TRUST_AUTH_PASSWORD_2 }));
    expect(new Set([ledger, payments, patched, otherLogin]).size).toBe(4);
    expect(await servedBy(descriptor())).toBe(ledger);
  });

  it('never pools without a reuse scope or without a pool: each extraction is its own connection, closed after', async () => {
    engine = createEngine({ sessionPool: { maxIdlePerDatasource: 2, idleMs: 30_000 } });
    const a = await servedBy(descriptor({ reuseScope: undefined }));
    const b = await servedBy(descriptor({ reuseScope: undefined }));
    expect(a).not.toBe(b);
    await engine.close();
    engine = createEngine();
    expect(await servedBy(descriptor())).not.toBe(await servedBy(descriptor()));
    await expect.poll(sessionsOnServer).toBe(0);
  });

  it('a session the server closed between jobs costs a fresh connect, never a failed job', async () => {
    engine = createEngine({ sessionPool: { maxIdlePerDatasource: 2, idleMs: 30_000 } });
    const first = await servedBy(descriptor());
    await db().query('SELECT pg_terminate_backend($1)', [first]);
    await expect.poll(sessionsOnServer).toBe(0);
    const second = await servedBy(descriptor());
    expect(second).not.toBe(first);
    expect(await servedBy(descriptor())).toBe(second);
  });

  describe('behind a proxy that goes silent on a ping', () => {
    let proxy: TcpProxy;
    let silencing = false;

    beforeAll(async () => {
      // The ping is the simple query `SELECT 1`; nothing else the connector sends looks like it.
      const ping = Buffer.from('Q\u0000\u0000\u0000\u000dSELECT 1\u0000', 'latin1');
      proxy = await startTcpProxy(db().port, '127.0.0.1', { silenceWhen: (chunk) => silencing && chunk.equals(ping) });
    });

    afterAll(async () => {
      await proxy?.close();
    });

    it('a pooled session whose server stopped answering costs one ping deadline and a fresh connect, not the job', async () => {
      engine = createEngine({ sessionPool: { maxIdlePerDatasource: 2, idleMs: 30_000 } });
      const viaProxy = descriptor({ port: proxy.port });
      const first = await servedBy(viaProxy);
      expect(proxy.total).toBe(1);
      silencing = true;
      const started = performance.now();
      const second = await servedBy(viaProxy);
      const tookMs = performance.now() - started;
      expect(second).not.toBe(first);
      expect(proxy.total).toBe(2);
      expect(tookMs).toBeGreaterThanOrEqual(PING_TIMEOUT_MS - 50);
      expect(tookMs).toBeLessThan(PING_TIMEOUT_MS + 5_000);
      // The silent one was cut, not left open.
      await expect.poll(() => proxy.open).toBe(1);
    });
  });

  it('does not keep a session whose read was aborted', async () => {
    engine = createEngine({ sessionPool: { maxIdlePerDatasource: 2, idleMs: 30_000 } });
    const first = await servedBy(descriptor());
    const controller = new AbortController();
    const sink = new (await import('node:stream')).Writable({
      write(_chunk, _encoding, done) {
        controller.abort(new Error('stopped by the test'));
        done();
      },
    });
    await expect(
      engine.extract(
        {
          datasources: { pg: descriptor() },
          dataRequest: { mappedFields: { pg: { orders: ['id', 'amount'] } } },
          signal: controller.signal,
        },
        sink,
      ),
    ).rejects.toMatchObject({ code: 'FET-1105' });
    const next = await servedBy(descriptor());
    expect(next).not.toBe(first);
  });
});
