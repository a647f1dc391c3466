import { Int32, type Document } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ABORT_SLACK_MS,
  expectOpenBoundedAfterLogin,
  expectSilentServerCannotHoldDiscovery,
  expectSilentServerCannotHoldRead,
  startSilentAfter,
} from '../../../../test/helpers/session-scenarios.js';
import { startTcpProxy, type TcpProxy } from '../../../../test/helpers/tcp-proxy.js';
import type { ConnectorSession } from '../shared/engine-connector.js';
import { MongoDbConnector } from './mongodb.connector.js';
import { fakeMongoDatasource } from './testing/fake-mongo-datasource.js';
import { type FakeMongoOptions, type FakeMongoServer, startFakeMongoServer } from './testing/fake-mongo-server.js';

const datasource = fakeMongoDatasource;

const ITEMS: Document[] = Array.from({ length: 2_500 }, (_, i) => ({ _id: new Int32(i + 1), sku: `SKU-${i + 1}`, note: 'x'.repeat(100) }));

describe('MongoDbSession deadlines', () => {
  const connector = new MongoDbConnector();
  let server: FakeMongoServer | undefined;
  let proxy: TcpProxy | undefined;
  let session: ConnectorSession | undefined;

  afterEach(async () => {
    await session?.close();
    await proxy?.close();
    await server?.close();
    session = server = proxy = undefined;
  });

  const start = async (options: FakeMongoOptions = {}): Promise<FakeMongoServer> => {
    server = await startFakeMongoServer({ collections: { items: { docs: ITEMS }, empty: { docs: [] } }, ...options });
    return server;
  };
  const throughProxy = async (): Promise<ConnectorSession> => {
    const fake = await start();
    proxy = await startTcpProxy(fake.port);
    session = await connector.open(datasource(proxy.port), { connectTimeoutMs: 3_000 });
    return session;
  };

  it('gives up a discovery on a server gone silent within its deadline plus the abort budget', async () => {
    await expectSilentServerCannotHoldDiscovery(await throughProxy(), proxy!, null);
  });

  it('gives up a read on a server gone silent mid-stream at once', async () => {
    const s = await throughProxy();
    const items = (await s.discover(null, new AbortController().signal)).tables.get('items')!;
    await expectSilentServerCannotHoldRead(s, proxy!, items);
  });

  it('fails an open whose ping is never answered, on its connect deadline or at once on abort', async () => {
    const fake = await start();
    const silent = await startSilentAfter(fake.port, 'ping');
    try {
      // The driver's own deadline comes first; ours is a second later.
      await expectOpenBoundedAfterLogin(connector, datasource(silent.port), 1_000);
    } finally {
      await silent.close();
    }
  });

  it('stops a discovery whose sampling query is in flight, and the session stays usable', async () => {
    let holding = true;
    const fake = await start({ hold: (cmd) => holding && Object.keys(cmd)[0] === 'aggregate' });
    session = await connector.open(datasource(fake.port), { connectTimeoutMs: 3_000 });
    const controller = new AbortController();
    const discovering = session.discover(null, controller.signal);
    discovering.catch(() => undefined);
    await expect.poll(() => fake.named('aggregate').length).toBe(1);
    const started = Date.now();
    controller.abort(new Error('deadline'));
    await expect(discovering).rejects.toThrow('deadline');
    expect(Date.now() - started).toBeLessThan(ABORT_SLACK_MS);

    holding = false;
    const items = (await session.discover(null, new AbortController().signal)).tables.get('items')!;
    let rows = 0;
    for await (const batch of session.readRows({ table: items, columns: items.columns }, new AbortController().signal))
      rows += batch.rowCount;
    expect(rows).toBe(ITEMS.length);
  });
});
