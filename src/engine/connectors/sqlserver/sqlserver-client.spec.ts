import { EventEmitter } from 'node:events';
import type { Connection as TediousConnection } from 'tedious';
import { describe, expect, it } from 'vitest';
import { CANCEL_TIMEOUT_MS, ConnectionWatch, poolConfig, SESSION_SETUP_SQL } from './sqlserver-client.js';
import { tlsOptions } from './sqlserver-ssl.js';
import { fakeDatasource } from './testing/fake-datasource.js';

const DS = fakeDatasource(14330, {
  host: 'db.example',
  databaseName: 'led;ger=db',
  userName: 'svc user;x',
  password: 'p@ss;w/rd?&=+ %\'"',
});

/** A stand-in for a tedious Connection: an emitter whose close() ends it, as tedious does. */
class FakeConnection extends EventEmitter {
  closed = false;
  close(): void {
    this.closed = true;
    this.emit('end');
  }
}
const asTedious = (c: FakeConnection) => c as unknown as TediousConnection;

describe('mssql pool configuration', () => {
  it('passes every coordinate structurally, characters a connection string would mangle included', () => {
    const config = poolConfig(DS, tlsOptions({ mode: null }), 2500);
    expect(config).toMatchObject({
      server: 'db.example',
      port: 14330,
      database: 'led;ger=db',
      user: 'svc user;x',
      password: 'p@ss;w/rd?&=+ %\'"',
      connectionTimeout: 2500,
    });
    expect(JSON.stringify(config)).not.toMatch(/Server=|Password=|mssql:\/\//i);
  });

  it('runs extraction without a request timeout, on exactly one never-reaped connection, rows as arrays', () => {
    const config = poolConfig(DS, tlsOptions({ mode: null }), 2500);
    expect(config.requestTimeout).toBe(0);
    expect(config.pool).toEqual({ max: 1, min: 0, idleTimeoutMillis: 2_147_483_647 });
    expect(config).toMatchObject({ arrayRowMode: true, stream: false, parseJSON: false, validateConnection: 'socket' });
    expect(config.options).toMatchObject({
      appName: 'fetcher',
      lowerCaseGuids: true,
      useUTC: true,
      maxRetriesOnTransientErrors: 0,
      cancelTimeout: CANCEL_TIMEOUT_MS,
    });
  });

  it('treats a non-positive connect timeout as no deadline (tedious would fire at once)', () => {
    expect(poolConfig(DS, tlsOptions({ mode: null }), 0).connectionTimeout).toBe(2_147_483_647);
  });

  it.each<[string, unknown, unknown]>([
    ['disable', false, {}],
    ['true', true, { ca: 'CA', cert: 'CERT', key: 'KEY' }],
    ['strict', 'strict', { ca: 'CA', cert: 'CERT', key: 'KEY' }],
  ])('hands the %s SSL mode to tedious, certificate material through cryptoCredentialsDetails', (mode, encrypt, credentials) => {
    const options = poolConfig(DS, tlsOptions({ mode, ca: 'CA', cert: 'CERT', key: 'KEY' }), 1000).options;
    expect(options).toMatchObject({ encrypt, trustServerCertificate: false, cryptoCredentialsDetails: credentials });
  });

  it('watches the connections the pool creates only when asked to', () => {
    expect(poolConfig(DS, tlsOptions({ mode: null }), 1000).beforeConnect).toBeUndefined();
    const watch = new ConnectionWatch(false);
    const connection = new FakeConnection();
    poolConfig(DS, tlsOptions({ mode: null }), 1000, watch).beforeConnect?.(asTedious(connection));
    expect(watch.connections.has(asTedious(connection))).toBe(true);
  });

  it('proves the login with one round trip naming the session', () => {
    expect(SESSION_SETUP_SQL).toBe('SELECT @@SPID');
  });
});

describe('ConnectionWatch', () => {
  it('keeps every error number of the login, not only the last one tedious reports', () => {
    const watch = new ConnectionWatch(false);
    const connection = new FakeConnection();
    watch.attach(asTedious(connection));
    connection.emit('errorMessage', { number: 4060 });
    connection.emit('errorMessage', { number: 18456 });
    connection.emit('connect', new Error('Login failed.'));
    expect(watch.loginErrors).toEqual([4060, 18456]);
  });

  it('ignores statement errors after the login', () => {
    const watch = new ConnectionWatch(false);
    const connection = new FakeConnection();
    watch.attach(asTedious(connection));
    connection.emit('connect');
    connection.emit('errorMessage', { number: 208 });
    expect(watch.loginErrors).toEqual([]);
  });

  it('counts logins that completed without TLS when the mode requires it', () => {
    const required = new ConnectionWatch(true);
    const [clear, secure] = [new FakeConnection(), new FakeConnection()];
    required.attach(asTedious(clear));
    required.attach(asTedious(secure));
    secure.emit('secure');
    clear.emit('connect');
    secure.emit('connect');
    expect(required.unencryptedLogins).toBe(1);

    const optional = new ConnectionWatch(false);
    const plain = new FakeConnection();
    optional.attach(asTedious(plain));
    plain.emit('connect');
    expect(optional.unencryptedLogins).toBe(0);
  });

  it('reports a logged-in connection that ends or fails as lost, but not a failed login', () => {
    const watch = new ConnectionWatch(false);
    const lost: string[] = [];
    watch.onLost = (error) => lost.push(error.message);
    const [failed, live] = [new FakeConnection(), new FakeConnection()];
    watch.attach(asTedious(failed));
    watch.attach(asTedious(live));
    failed.emit('connect', new Error('Login failed.'));
    failed.close();
    live.emit('connect');
    live.emit('error', new Error('Connection lost - read ECONNRESET'));
    live.close();
    expect(lost).toEqual(['Connection lost - read ECONNRESET', 'connection closed']);
    expect(watch.connections.size).toBe(0);
  });

  it('cuts every connection, and any created afterwards', () => {
    const watch = new ConnectionWatch(false);
    const [a, b, late] = [new FakeConnection(), new FakeConnection(), new FakeConnection()];
    watch.attach(asTedious(a));
    watch.attach(asTedious(b));
    watch.cut();
    watch.attach(asTedious(late));
    expect([a.closed, b.closed, late.closed]).toEqual([true, true, true]);
  });
});
