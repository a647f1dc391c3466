import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import type { ConnectorSession, ResolvedDatasource } from '../engine/connectors/shared/engine-connector.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { scriptedConnector } from '../engine/testing/scripted-engine.js';
import { ConnectionTestSlots } from './connection-test-slots.js';
import { postgresDatasource } from '../engine/testing/postgres-datasource.js';

const datasource = (configName: string, host: string, internal = false): ResolvedDatasource =>
  postgresDatasource({ id: configName, configName, host, internal });

const ADDRESSES: Record<string, string[]> = {
  'db.example.com': ['93.184.216.34'],
  'other.example.com': ['93.184.216.35'],
};

/**
 * An engine whose sessions stay open until the test lets them go, counting how many are open at
 * once per address they were dialled to: what a server sees of Fetcher.
 */
function holdingEngine(options: { discoveryTimeoutMs?: number } = {}) {
  const open = new Map<string, number>();
  const peak = new Map<string, number>();
  const waiting: (() => void)[] = [];
  const session: ConnectorSession = {
    discover: async () => ({ tables: new Map() }),
    readRows: () => (async function* () {})(),
    close: async () => undefined,
  };
  const engine: Engine = createEngine({
    connectors: [
      {
        ...scriptedConnector(async () => session),
        open: async (_datasource, options) => {
          const address = options.egress?.target.address ?? 'internal';
          const key = address.replace(/^::ffff:/i, '');
          open.set(key, (open.get(key) ?? 0) + 1);
          peak.set(key, Math.max(peak.get(key) ?? 0, open.get(key) as number));
          try {
            await new Promise<void>((release, reject) => {
              waiting.push(release);
              options.signal?.addEventListener('abort', () => reject(options.signal?.reason as Error), { once: true });
            });
          } finally {
            open.set(key, (open.get(key) as number) - 1);
          }
          return session;
        },
      },
    ],
    egress: new EgressGuard({ allowPrivateHosts: false }, async (name) => ADDRESSES[name] ?? []),
    ...options,
  });
  const releaseAll = async () => {
    // Keep releasing until everything queued behind the caps has run.
    for (let idle = 0; idle < 20; idle++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (waiting.length > 0) idle = 0;
      while (waiting.length > 0) (waiting.shift() as () => void)();
    }
  };
  return { engine, peak, releaseAll };
}

const slots = (maxConcurrent: number, maxPerHost: number) =>
  new ConnectionTestSlots({ connectionTests: { maxConcurrent, maxPerHost } } as AppConfig);

describe('ConnectionTestSlots: the per-host cap is on the address dialled', () => {
  it('gives DB.x, db.x., the IP literal and its IPv4-mapped spelling one cap; another address its own', async () => {
    const { engine, peak, releaseAll } = holdingEngine();
    const gate = slots(16, 1).gate;
    const spellings = ['DB.Example.COM', 'db.example.com.', '93.184.216.34', '::ffff:93.184.216.34', '[::FFFF:5db8:d822]'];
    const tests = [...spellings, 'other.example.com'].map((host, i) => engine.testDatasource(datasource(`pg${i}`, host), 10_000, gate));
    await releaseAll();
    const outcomes = await Promise.all(tests);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(peak.get('93.184.216.34')).toBe(1);
    expect(peak.get('93.184.216.35')).toBe(1);
  });

  it('holds live discoveries to the same caps as tests, against one address', async () => {
    const { engine, peak, releaseAll } = holdingEngine();
    const gate = slots(16, 2).gate;
    const work = [
      ...['DB.example.com', 'db.example.com.', '93.184.216.34'].map((host, i) =>
        engine.discoverDatasource(datasource(`d${i}`, host), null, { gate }),
      ),
      ...['db.example.com', '93.184.216.34'].map((host, i) => engine.testDatasource(datasource(`t${i}`, host), 10_000, gate)),
    ];
    await releaseAll();
    await Promise.all(work);
    expect(peak.get('93.184.216.34')).toBe(2);
  });

  it('keeps the global cap across addresses', async () => {
    const { engine, peak, releaseAll } = holdingEngine();
    const limits = slots(1, 4);
    let running = 0;
    let most = 0;
    const counted = <T>(host: string, signal: AbortSignal, work: () => Promise<T>) =>
      limits.run(host, signal, async () => {
        most = Math.max(most, ++running);
        try {
          return await work();
        } finally {
          running--;
        }
      });
    const tests = ['db.example.com', 'other.example.com'].map((host, i) =>
      engine.testDatasource(datasource(`g${i}`, host), 10_000, counted),
    );
    await releaseAll();
    await Promise.all(tests);
    expect(most).toBe(1);
    expect([...peak.values()]).toEqual([1, 1]);
  });

  it('reports a test that waited past its timeout for a slot as too many tests running', async () => {
    const { engine, releaseAll } = holdingEngine();
    const gate = slots(16, 1).gate;
    const first = engine.testDatasource(datasource('a', 'db.example.com'), 10_000, gate);
    // The first holds the address's only slot before the second asks for it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await engine.testDatasource(datasource('b', '93.184.216.34'), 50, gate);
    expect(second.ok).toBe(false);
    expect(!second.ok && second.error.message).toContain('too many connection tests are running');
    await releaseAll();
    expect((await first).ok).toBe(true);
  });

  it('fails a discovery that waited past its deadline for a slot with FET-1043, saying why', async () => {
    const { engine, releaseAll } = holdingEngine({ discoveryTimeoutMs: 300 });
    const gate = slots(16, 1).gate;
    const holder = engine.testDatasource(datasource('a', 'db.example.com'), 10_000, gate);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const error = await engine.discoverDatasource(datasource('b', 'DB.example.com'), null, { gate }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: FetCode.SchemaDiscoveryTimeout });
    expect((error as Error).message).toContain('too many connection tests and schema discoveries are running');
    await releaseAll();
    expect((await holder).ok).toBe(true);
  });
});
