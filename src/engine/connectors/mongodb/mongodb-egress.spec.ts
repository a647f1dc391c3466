import { afterEach, describe, expect, it } from 'vitest';
import { DatasourceSessions } from '../../sessions/datasource-sessions.js';
import { DatasourceType } from '../datasource-type.js';
import { EgressGuard } from '../../egress/egress-guard.js';
import { startCountingListener, type CountingListener } from '../../egress/testing/counting-listener.js';
import { ConnectorRegistry } from '../shared/connector-registry.js';
import type { ConnectorSession, ResolvedDatasource, TableInfo } from '../shared/engine-connector.js';
import { MongoDbConnector } from './mongodb.connector.js';
import { startFakeMongoServer, type FakeMongoServer } from './testing/fake-mongo-server.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

/**
 * A seed that says it belongs to a replica set and advertises other members must not lead the
 * driver to them: those addresses were never checked. Loopback is private, so private hosts are
 * allowed here (the seed must be reachable); the member, though allowed by policy, is never
 * dialled at all, and the seed's name is never resolved by the driver.
 */
const datasource = (port: number, host: string): ResolvedDatasource =>
  datasourceRecord(
    DatasourceType.MongoDB,
    'docs_rs',
    { host, port, name: 'shop', user: '', password: '' },
    { id: 'id-mongo', metadata: { directConnection: 'false' } },
  );

let seed: FakeMongoServer | undefined;
let member: CountingListener | undefined;
let session: ConnectorSession | undefined;
afterEach(async () => {
  await session?.close();
  await Promise.all([seed?.close(), member?.close()]);
  session = undefined;
});

describe('MongoDB egress', () => {
  it('reads from the seed alone, at its checked address, and never dials an advertised member', async () => {
    member = await startCountingListener('127.0.0.1');
    const advertised = `127.0.0.1:${member.port}`;
    seed = await startFakeMongoServer({
      collections: {
        items: {
          docs: [
            { _id: 1, sku: 'A' },
            { _id: 2, sku: 'B' },
          ],
        },
      },
      hello: { setName: 'rs0', hosts: [advertised], primary: advertised, me: advertised, setVersion: 1 },
    });
    const resolved: string[] = [];
    const guard = new EgressGuard(
      { allowPrivateHosts: true },
      async (host) => (resolved.push(host), host === 'mongo.fetcher-egress.test' ? ['127.0.0.1'] : []),
    );
    const sessions = new DatasourceSessions(new ConnectorRegistry([new MongoDbConnector()]), guard, { allowPlaintextPassword: false });

    session = await sessions.open(datasource(seed.port, 'mongo.fetcher-egress.test'), { connectTimeoutMs: 3_000 });
    const items = (await session.discover(null, new AbortController().signal)).tables.get('items') as TableInfo;
    const batches: string[] = [];
    for await (const batch of session.readRows(
      { table: items, columns: items.columns.filter((c) => c.name === 'sku') },
      new AbortController().signal,
    )) {
      batches.push(batch.json.toString('utf8'));
    }
    expect(batches.join(',')).toBe('{"sku":"A"},{"sku":"B"}');
    expect(seed.named('find').length).toBeGreaterThan(0);
    expect(resolved).toEqual(['mongo.fetcher-egress.test']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(member.connections).toBe(0);
  });
});
