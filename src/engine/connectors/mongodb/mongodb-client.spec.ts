import { createServer, type Server, type Socket } from 'node:net';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { DatasourceType } from '../datasource-type.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { checkDatabaseName, connectMongo, hostAddress, InvalidMongoSettingError, mongoClientSettings } from './mongodb-client.js';
import { classifyConnectError } from './mongodb-connect-error.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

const DS: ResolvedDatasource = datasourceRecord(
  DatasourceType.MongoDB,
  'docs_db',
  { host: 'mongo.internal.example', port: 27018, name: 'shop', user: 'svc@fetch', password: 'p@ss:w/rd?&%20+ ' },
  { id: 'id-1' },
);
const ds = (overrides: Partial<ResolvedDatasource>): ResolvedDatasource => ({ ...DS, ...overrides });

describe('MongoDB client options', () => {
  it('builds the URI from host and port only, and passes credentials as options', () => {
    const { url, options } = mongoClientSettings(DS, 4_000);
    expect(url).toBe('mongodb://mongo.internal.example:27018/');
    expect(url).not.toContain('svc');
    expect(url).not.toContain('p@ss');
    expect(options).toMatchObject({
      auth: { username: 'svc@fetch', password: 'p@ss:w/rd?&%20+ ' },
      authSource: 'admin',
      appName: 'fetcher',
      serverSelectionTimeoutMS: 4_000,
      connectTimeoutMS: 4_000,
      tls: false,
      promoteValues: false,
      promoteLongs: false,
      promoteBuffers: false,
      bsonRegExp: true,
    });
    expect(options.directConnection).toBe(true);
  });

  it('is read by the driver as intended: credentials intact, no database or options taken from the URI', () => {
    const { url, options } = mongoClientSettings(
      ds({ metadata: { authSource: 'users_db', directConnection: 'true' }, ssl: { mode: 'true', ca: 'CA' } }),
      4_000,
    );
    const parsed = new MongoClient(url, options).options;
    expect(parsed.hosts.map(String)).toEqual(['mongo.internal.example:27018']);
    expect(parsed.credentials).toMatchObject({ username: 'svc@fetch', password: 'p@ss:w/rd?&%20+ ', source: 'users_db' });
    expect(parsed).toMatchObject({ directConnection: true, tls: true, ca: 'CA', appName: 'fetcher', serverSelectionTimeoutMS: 4_000 });
  });

  it.each<[unknown]>([[true], ['true'], [false], ['false'], [undefined]])(
    'always connects directly, so advertised replica set members are never dialled (metadata.directConnection %j is ignored)',
    (value) => {
      const { url, options } = mongoClientSettings(ds({ metadata: { directConnection: value } }), 1_000);
      expect(options.directConnection).toBe(true);
      expect(new MongoClient(url, options).options.directConnection).toBe(true);
    },
  );

  it('answers the pinned address for the record host through lookup, and only with an egress policy', async () => {
    expect(mongoClientSettings(DS, 1_000).options.lookup).toBeUndefined();
    const target = { host: 'mongo.internal.example', address: '93.184.216.34', family: 4 as const };
    const egress = {
      target,
      checkAddress: () => undefined,
      resolve: async (host: string) => (host === target.host ? target : Promise.reject(new Error('refused'))),
    };
    const { options } = mongoClientSettings(DS, 1_000, egress);
    const lookup = options.lookup as unknown as (host: string, options: object, cb: (...args: unknown[]) => void) => void;
    const one = await new Promise<unknown[]>((resolve) => lookup('mongo.internal.example', {}, (...args) => resolve(args)));
    expect(one).toEqual([null, '93.184.216.34', 4]);
    const all = await new Promise<unknown[]>((resolve) => lookup('mongo.internal.example', { all: true }, (...args) => resolve(args)));
    expect(all).toEqual([null, [{ address: '93.184.216.34', family: 4 }]]);
    const other = await new Promise<unknown[]>((resolve) => lookup('member.internal.example', {}, (...args) => resolve(args)));
    expect(other[0]).toBeInstanceOf(Error);
  });

  it('takes authSource from metadata, defaulting to admin', () => {
    expect(mongoClientSettings(ds({ metadata: { authSource: ' $external ' } }), 1).options.authSource).toBe('$external');
    expect(mongoClientSettings(ds({ metadata: { authSource: '' } }), 1).options.authSource).toBe('admin');
    expect(mongoClientSettings(ds({ metadata: { authSource: 42 } }), 1).options.authSource).toBe('admin');
  });

  it('does not authenticate without a user name', () => {
    const { options } = mongoClientSettings(ds({ userName: '', password: '' }), 1_000);
    expect(options.auth).toBeUndefined();
    expect(options.authSource).toBeUndefined();
  });

  it('leaves the driver defaults when there is no timeout', () => {
    const { options } = mongoClientSettings(DS, 0);
    expect(options.serverSelectionTimeoutMS).toBeUndefined();
    expect(options.connectTimeoutMS).toBeUndefined();
  });

  it('maps the SSL mode', () => {
    expect(mongoClientSettings(ds({ ssl: { mode: 'insecure' } }), 1).options).toMatchObject({
      tls: true,
      tlsAllowInvalidCertificates: true,
    });
    expect(() => mongoClientSettings(ds({ ssl: { mode: 'require' } }), 1)).toThrow('unsupported MongoDB SSL mode');
  });

  it.each<[string, number, string]>([
    ['db.example.com', 27017, 'db.example.com:27017'],
    ['mongo_1', 27017, 'mongo_1:27017'],
    ['10.0.0.5', 1, '10.0.0.5:1'],
    ['::1', 27017, '[::1]:27017'],
    ['[fe80::1]', 27017, '[fe80::1]:27017'],
  ])('host %s:%d → %s', (host, port, address) => {
    expect(hostAddress(host, port)).toBe(address);
  });

  it.each<[string, number]>([
    ['user:pw@evil.example', 27017],
    ['a.example,b.example', 27017],
    ['db.example/admin?authSource=x', 27017],
    ['db.example:27018', 27017],
    ['', 27017],
    ['db example', 27017],
    ['db.example', 0],
    ['db.example', 65_536],
    ['db.example', 1.5],
  ])('refuses host %j port %d', (host, port) => {
    expect(() => hostAddress(host, port)).toThrow(InvalidMongoSettingError);
  });

  it.each(['shop', 'fetcher_test-1', 'ção'])('accepts database name %s', (name) => {
    expect(() => checkDatabaseName(name)).not.toThrow();
  });

  it.each(['', 'a.b', 'a/b', 'a b', 'a$b', 'x'.repeat(64)])('refuses database name %j', (name) => {
    expect(() => checkDatabaseName(name)).toThrow('invalid database name');
  });
});

describe('MongoDB connect over real sockets (no server needed)', () => {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A TCP server that accepts connections and then does what `onSocket` says. */
  const listen = async (onSocket: (socket: Socket) => void): Promise<number> => {
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      onSocket(socket);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  };
  const closedPort = async (): Promise<number> => {
    const port = await listen(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    return port;
  };
  const attempt = (port: number, timeoutMs: number, signal?: AbortSignal) =>
    connectMongo(mongoClientSettings(ds({ host: '127.0.0.1', port }), timeoutMs), 'shop', timeoutMs, signal);

  it('a closed port is unreachable', async () => {
    const error = await attempt(await closedPort(), 1_500).catch((e: unknown) => e);
    expect((error as Error).name).toBe('MongoServerSelectionError');
    expect(classifyConnectError(error)).toBe('unreachable');
  });

  it('a server that never answers is a timeout', async () => {
    const port = await listen(() => undefined);
    const started = Date.now();
    const error = await attempt(port, 400).catch((e: unknown) => e);
    expect(classifyConnectError(error)).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a server that drops the connection is reported as such', async () => {
    const port = await listen((socket) => socket.destroy());
    const error = await attempt(port, 800).catch((e: unknown) => e);
    expect(classifyConnectError(error)).toBe('unknown');
  });

  it('an abort stops connecting at once with the signal reason', async () => {
    const port = await listen(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('job cancelled')), 50);
    const started = Date.now();
    await expect(attempt(port, 10_000, controller.signal)).rejects.toThrow('job cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
