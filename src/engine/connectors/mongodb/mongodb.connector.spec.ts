import { afterEach, describe, expect, it } from 'vitest';
import { DatasourceType } from '../datasource-type.js';
import { DatasourceConnectError } from '../../errors/datasource-errors.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { MongoDbConnector } from './mongodb.connector.js';
import { fakeMongoDatasource } from './testing/fake-mongo-datasource.js';
import { type FakeMongoOptions, type FakeMongoServer, startFakeMongoServer } from './testing/fake-mongo-server.js';

/** Credentials set: the connector must keep them out of every message. */
const datasource = (port: number, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource =>
  fakeMongoDatasource(port, { userName: 'svc_fetch', password: 'hunter2-very-secret', ...overrides });

const connector = new MongoDbConnector();
let server: FakeMongoServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fake = async (options: FakeMongoOptions = {}): Promise<FakeMongoServer> => {
  server = await startFakeMongoServer(options);
  return server;
};

const failure = async (ds: ResolvedDatasource, timeoutMs = 2_000): Promise<DatasourceConnectError> => {
  const error = await connector.open(ds, { connectTimeoutMs: timeoutMs }).then(
    async (session) => {
      await session.close();
      throw new Error('open() succeeded');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatasourceConnectError);
  const connectError = error as DatasourceConnectError;
  expect(connectError.message).not.toContain('hunter2');
  expect(connectError.message).not.toContain('svc_fetch');
  return connectError;
};

describe('MongoDbConnector', () => {
  it('is the MongoDB engine, whose collections are never qualified', () => {
    expect(connector.type).toBe(DatasourceType.MongoDB);
    expect(connector.defaultSchema(datasource(1))).toBeNull();
  });

  it('connects, pings and checks access to the database (no credentials: no SCRAM at all)', async () => {
    const { port, named } = await fake();
    const session = await connector.open(datasource(port, { userName: '', password: '' }), { connectTimeoutMs: 2_000 });
    await session.close();
    expect(named('ping')).toEqual([expect.objectContaining({ $db: 'shop' })]);
    expect(named('listCollections')).toEqual([
      expect.objectContaining({ filter: { name: '' }, nameOnly: true, authorizedCollections: true, $db: 'shop' }),
    ]);
    expect(named('saslStart')).toHaveLength(0);
  });

  it('identifies itself as appName fetcher in the handshake', async () => {
    const { port, commands } = await fake();
    const session = await connector.open(datasource(port, { userName: '' }), { connectTimeoutMs: 2_000 });
    await session.close();
    const hello = commands.find((cmd) => 'client' in cmd) as { client: { application?: { name?: string } } };
    expect(hello.client.application?.name).toBe('fetcher');
  });

  it('a refused login (code 18) is auth_failed, naming the authSource, never the credentials', async () => {
    const { port, named } = await fake({ rejectAuth: true });
    const error = await failure(datasource(port, { metadata: { authSource: 'users_db' } }));
    expect(error.reason).toBe('auth_failed');
    expect(error.message).toBe(
      'Cannot connect to MongoDB datasource "docs_db": authentication failed: the server rejected the credentials (authSource "users_db")',
    );
    expect(named('saslStart')[0]).toMatchObject({ $db: 'users_db' });
  });

  it('a login without any right on the database is auth_failed', async () => {
    const { port } = await fake({
      failures: {
        listCollections: {
          ok: 0,
          errmsg: 'not authorized on shop to execute command { listCollections: 1 }',
          code: 13,
          codeName: 'Unauthorized',
        },
      },
    });
    const error = await failure(datasource(port, { userName: '' }));
    expect(error.reason).toBe('auth_failed');
    expect(error.message).toContain('the server requires authentication and the connection has no user name');
  });

  it('a closed port is unreachable', async () => {
    const { port } = await fake();
    await server!.close();
    server = undefined;
    const error = await failure(datasource(port));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain(`cannot reach 127.0.0.1:${port} (connection refused)`);
  });

  it('refuses an invalid SSL mode, a bad host and a bad database name before any connection', async () => {
    expect((await failure(datasource(1, { ssl: { mode: 'verify-full' } }))).reason).toBe('tls');
    expect((await failure(datasource(1, { host: 'evil.example/?authSource=x' }))).reason).toBe('unreachable');
    expect((await failure(datasource(1, { databaseName: 'a.b' }))).reason).toBe('database_not_found');
  });

  it('a TLS mode against a server without TLS fails as tls', async () => {
    const { port } = await fake();
    const error = await failure(datasource(port, { ssl: { mode: 'insecure' } }));
    expect(error.reason).toBe('tls');
  });

  it('rethrows the abort reason as is', async () => {
    const controller = new AbortController();
    controller.abort(new Error('job cancelled'));
    await expect(connector.open(datasource(1), { connectTimeoutMs: 1_000, signal: controller.signal })).rejects.toThrow('job cancelled');
  });
});
