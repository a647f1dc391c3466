import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectorRegistry } from '../connectors/shared/connector-registry.js';
import type { ConnectorSession, EngineConnector, ResolvedDatasource } from '../connectors/shared/engine-connector.js';
import { DatasourceType } from '../connectors/datasource-type.js';
import { EgressGuard } from '../egress/egress-guard.js';
import { postgresDatasource } from '../testing/postgres-datasource.js';
import { DatasourceSessions } from './datasource-sessions.js';
import { PING_TIMEOUT_MS, SessionPool } from './session-pool.js';

/** A session whose liveness, state and close the spec decides. */
class FakeSession implements ConnectorSession {
  static opened = 0;
  readonly serial = ++FakeSession.opened;
  pings = 0;
  closed = false;
  reusable = true;
  ping: (signal: AbortSignal) => Promise<void> = async () => {
    this.pings += 1;
  };

  discover(): never {
    throw new Error('not used');
  }

  readRows(): never {
    throw new Error('not used');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reusable = false;
  }
}

const ledger = (overrides: Partial<ResolvedDatasource> = {}) =>
  postgresDatasource({ id: 'conn-1', host: '93.184.216.34', reuseScope: 'ledger@2026-03-01T10:00:00.000Z', ...overrides });

function pooled(options = { maxIdlePerDatasource: 2, idleMs: 30_000 }) {
  const sessions: FakeSession[] = [];
  const connector: EngineConnector = {
    type: DatasourceType.PostgreSQL,
    defaultSchema: () => 'public',
    open: async () => {
      const session = new FakeSession();
      sessions.push(session);
      return session;
    },
  };
  const pool = new SessionPool(options);
  const subject = new DatasourceSessions(
    new ConnectorRegistry([connector]),
    new EgressGuard({ allowPrivateHosts: false }, async () => ['93.184.216.34']),
    { allowPlaintextPassword: true },
    pool,
  );
  const use = async (datasource: ResolvedDatasource) => {
    const session = await subject.acquire(datasource, { connectTimeoutMs: 1_000 });
    await session.close();
  };
  return { sessions, pool, subject, use };
}

describe('SessionPool through DatasourceSessions', () => {
  afterEach(() => vi.useRealTimers());

  it('hands the session a closed job left back to the next open of the same datasource, after a ping', async () => {
    const { sessions, pool, use } = pooled();
    await use(ledger());
    expect(pool.size).toBe(1);
    await use(ledger());
    expect(sessions).toHaveLength(1);
    expect(sessions[0].pings).toBe(1);
  });

  it('never hands a session to another product, another version of the connection or other credentials', async () => {
    const { sessions, use } = pooled({ maxIdlePerDatasource: 8, idleMs: 30_000 });
    await use(ledger());
    await use(ledger({ reuseScope: 'payments@2026-03-01T10:00:00.000Z' }));
    await use(ledger({ reuseScope: 'ledger@2026-03-01T10:05:00.000Z' }));
    await use(ledger({ password: 'rotated' }));
    await use(ledger({ userName: 'auditor' }));
    await use(ledger({ ssl: { mode: 'require' } }));
    await use(ledger({ id: 'conn-2' }));
    expect(sessions).toHaveLength(7);
    expect(sessions.map((session) => session.pings)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('never pools a datasource without a reuse scope (the CLI, a library caller), nor with reuse turned off', async () => {
    const unscoped = pooled();
    await unscoped.use(ledger({ reuseScope: undefined }));
    await unscoped.use(ledger({ reuseScope: undefined }));
    expect(unscoped.sessions).toHaveLength(2);
    expect(unscoped.sessions.every((session) => session.closed)).toBe(true);
    expect(unscoped.pool.size).toBe(0);

    const off = pooled({ maxIdlePerDatasource: 0, idleMs: 30_000 });
    await off.use(ledger());
    await off.use(ledger());
    expect(off.sessions).toHaveLength(2);
    expect(off.pool.size).toBe(0);
  });

  it('closes a session that is not reusable (interrupted, failed, inside a transaction) instead of keeping it', async () => {
    const { sessions, pool, subject } = pooled();
    const session = await subject.acquire(ledger(), { connectTimeoutMs: 1_000 });
    sessions[0].reusable = false;
    await session.close();
    expect(sessions[0].closed).toBe(true);
    expect(pool.size).toBe(0);
  });

  it('costs one failed ping and a fresh connect when the server dropped the pooled session', async () => {
    const { sessions, use } = pooled();
    await use(ledger());
    sessions[0].ping = async () => {
      throw new Error('Connection lost: server closed the connection');
    };
    await use(ledger());
    expect(sessions).toHaveLength(2);
    expect(sessions[0].closed).toBe(true);
  });

  it('gives up a ping that gets no answer within PING_TIMEOUT_MS and connects afresh', async () => {
    const { sessions, use } = pooled();
    await use(ledger());
    sessions[0].ping = (signal) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    const started = performance.now();
    await use(ledger());
    expect(performance.now() - started).toBeGreaterThanOrEqual(PING_TIMEOUT_MS - 50);
    expect(sessions).toHaveLength(2);
    expect(sessions[0].closed).toBe(true);
  });

  it('hands a session to one caller at a time, and a closed lent session cannot reach it any more', async () => {
    const { sessions, subject } = pooled();
    const first = await subject.acquire(ledger(), { connectTimeoutMs: 1_000 });
    const second = await subject.acquire(ledger(), { connectTimeoutMs: 1_000 });
    expect(sessions).toHaveLength(2);
    await first.close();
    const third = await subject.acquire(ledger(), { connectTimeoutMs: 1_000 });
    await expect(async () => first.discover(null, new AbortController().signal)).rejects.toThrow('Session is closed');
    await Promise.all([second.close(), third.close(), first.close()]);
    expect(sessions.filter((session) => session.closed)).toHaveLength(0);
  });

  it('keeps at most maxIdlePerDatasource idle sessions of a datasource and closes the rest', async () => {
    const { sessions, pool, subject } = pooled({ maxIdlePerDatasource: 2, idleMs: 30_000 });
    const held = await Promise.all([1, 2, 3].map(() => subject.acquire(ledger(), { connectTimeoutMs: 1_000 })));
    await Promise.all(held.map((session) => session.close()));
    expect(pool.size).toBe(2);
    expect(sessions.filter((session) => session.closed)).toHaveLength(1);
  });

  it('closes sessions idle longer than idleMs, without a timer that holds the process', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { sessions, pool, use } = pooled({ maxIdlePerDatasource: 2, idleMs: 10_000 });
    await use(ledger());
    await vi.advanceTimersByTimeAsync(9_000);
    expect(pool.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(pool.size).toBe(0);
    expect(sessions[0].closed).toBe(true);
  });

  it('forget(id) closes that connection’s idle sessions only; close() closes all and pools nothing after', async () => {
    const { sessions, pool, subject, use } = pooled();
    await use(ledger());
    await use(ledger({ id: 'conn-2' }));
    await subject.forget('conn-1');
    expect(sessions.map((session) => session.closed)).toEqual([true, false]);
    const held = await subject.acquire(ledger({ id: 'conn-2' }), { connectTimeoutMs: 1_000 });
    await pool.close();
    await held.close();
    expect(sessions.every((session) => session.closed)).toBe(true);
    expect(pool.size).toBe(0);
  });
});
