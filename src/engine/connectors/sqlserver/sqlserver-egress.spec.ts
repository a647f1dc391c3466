import { afterEach, describe, expect, it } from 'vitest';
import { DatasourceSessions } from '../../sessions/datasource-sessions.js';
import { DatasourceConnectError } from '../../errors/datasource-errors.js';
import { EgressGuard } from '../../egress/egress-guard.js';
import { createTestCertificates } from '../../../../test/helpers/test-certificates.js';
import type { AddressResolver } from '../../egress/address-resolver.js';
import { startCountingListener, type CountingListener } from '../../egress/testing/counting-listener.js';
import { PolicyOverrideGuard } from '../../egress/testing/policy-override-guard.js';
import { ConnectorRegistry } from '../shared/connector-registry.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import type { SqlServerSession } from './sqlserver-session.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { fakeDatasource } from './testing/fake-datasource.js';
import { startFakeTdsServer, type FakeTdsServer, type FakeTdsServerOptions } from './testing/fake-tds-server.js';

/**
 * SQL Server through DatasourceSessions and the real mssql/tedious client: the record's host is
 * dialled at its checked address, a routing answer (ENVCHANGE 20) is checked before it is
 * followed, and a password is never sent without encryption unless allowed. 127.0.0.1 (the fake
 * servers) is declared public for the test; 127.0.0.5 stays loopback, hence refused.
 */
const servers: FakeTdsServer[] = [];
const listeners: CountingListener[] = [];
afterEach(async () => {
  await Promise.all([...servers.splice(0).map((s) => s.close()), ...listeners.splice(0).map((l) => l.close())]);
});

const serve = async (options: FakeTdsServerOptions = {}): Promise<FakeTdsServer> => {
  const server = await startFakeTdsServer(options);
  servers.push(server);
  return server;
};

function sessions(options: { resolver?: AddressResolver; allowPlaintextPassword?: boolean } = {}) {
  const guard = new PolicyOverrideGuard(['127.0.0.1'], options.resolver);
  return new DatasourceSessions(new ConnectorRegistry([new SqlServerConnector()]), guard, {
    allowPlaintextPassword: options.allowPlaintextPassword ?? true,
  });
}

const openAndClose = async (subject: DatasourceSessions, ds: ResolvedDatasource): Promise<number> => {
  const session = (await subject.open(ds, { connectTimeoutMs: 5_000 })) as SqlServerSession;
  const spid = session.spid;
  await session.close();
  return spid;
};

const failure = (subject: DatasourceSessions, ds: ResolvedDatasource): Promise<Error> =>
  subject.open(ds, { connectTimeoutMs: 5_000 }).then(
    async (session) => {
      await session.close();
      throw new Error('expected the open to fail');
    },
    (error: unknown) => error as Error,
  );

describe('SQL Server egress', () => {
  it('dials the checked address of a name only the guard can resolve (tedious never looks it up)', async () => {
    const server = await serve();
    const resolved: string[] = [];
    const subject = sessions({ resolver: async (host) => (resolved.push(host), ['127.0.0.1']) });
    await expect(openAndClose(subject, fakeDatasource(server.port, { host: 'sql.fetcher-egress.test' }))).resolves.toBe(1);
    expect(resolved).toEqual(['sql.fetcher-egress.test']);
    expect(server.logins).toBeGreaterThan(0);
  });

  it('refuses a routing answer to a refused host: FET-0414, and the routed host receives no connection', async () => {
    const routedTo = await startCountingListener('127.0.0.5');
    listeners.push(routedTo);
    const front = await serve({ route: { server: '127.0.0.5', port: routedTo.port } });
    const error = await failure(sessions(), fakeDatasource(front.port));
    expect(error).toMatchObject({ code: 'FET-0414' });
    expect(error.message).toContain('"mssql_fake"');
    expect(error.message).not.toContain('127.0.0.5');
    expect(front.logins).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(routedTo.connections).toBe(0);
  });

  it('refuses a routing answer to a name that resolves to a refused address', async () => {
    const routedTo = await startCountingListener('127.0.0.5');
    listeners.push(routedTo);
    const front = await serve({ route: { server: 'replica.fetcher-egress.test', port: routedTo.port } });
    const subject = sessions({ resolver: async (host) => (host === 'replica.fetcher-egress.test' ? ['127.0.0.5'] : []) });
    await expect(failure(subject, fakeDatasource(front.port))).resolves.toMatchObject({ code: 'FET-0414' });
    expect(routedTo.connections).toBe(0);
  });

  it('follows a routing answer to an allowed host, by name, and logs in there', async () => {
    const replica = await serve();
    const front = await serve({ route: { server: 'replica.fetcher-egress.test\\INST1', port: replica.port } });
    const resolved: string[] = [];
    const subject = sessions({
      resolver: async (host) => (resolved.push(host), host === 'replica.fetcher-egress.test' ? ['127.0.0.1'] : []),
    });
    await expect(openAndClose(subject, fakeDatasource(front.port))).resolves.toBe(1);
    expect(resolved).toContain('replica.fetcher-egress.test');
    expect(replica.statements).toContain('SELECT @@SPID');
    expect(front.statements).toEqual([]);
  });
});

describe('SQL Server TLS while dialling the checked address', () => {
  const certs = createTestCertificates();
  const names: Record<string, string[]> = { localhost: ['127.0.0.1'], 'sql-tls.fetcher-egress.test': ['127.0.0.1'] };
  const subject = new DatasourceSessions(
    new ConnectorRegistry([new SqlServerConnector()]),
    new EgressGuard({ allowPrivateHosts: true }, async (host) => names[host] ?? []),
    { allowPlaintextPassword: false },
  );

  it.each(['true', 'strict'])(
    'SSL mode %s verifies the certificate against the name: localhost passes, another name fails',
    async (mode) => {
      const server = await serve(
        mode === 'true'
          ? { preloginTls: { cert: certs.serverCert, key: certs.serverKey } }
          : { tls: { cert: certs.serverCert, key: certs.serverKey } },
      );
      await expect(openAndClose(subject, fakeDatasource(server.port, { host: 'localhost', ssl: { mode, ca: certs.ca } }))).resolves.toBe(1);
      const logins = server.logins;
      // The certificate names 127.0.0.1 too: only a check against the name can fail here.
      const error = await failure(
        subject,
        fakeDatasource(server.port, { host: 'sql-tls.fetcher-egress.test', ssl: { mode, ca: certs.ca } }),
      );
      expect(error).toMatchObject({ reason: 'tls' });
      expect(server.logins).toBe(logins);
    },
  );
});

describe('SQL Server and plaintext passwords', () => {
  it('refuses to send a password without encryption when plaintext passwords are not allowed, before dialling', async () => {
    const server = await serve();
    const error = await failure(sessions({ allowPlaintextPassword: false }), fakeDatasource(server.port, { ssl: { mode: 'disable' } }));
    expect(error).toBeInstanceOf(DatasourceConnectError);
    expect(error).toMatchObject({ reason: 'plaintext_password_refused', configName: 'mssql_fake' });
    expect(error.message).toMatch(/^Cannot connect to SQL Server datasource "mssql_fake": .*clear text/);
    expect(error.message).toContain('ALLOW_PLAINTEXT_PASSWORD=true');
    expect(error.message).toMatch(/"true" or "strict"/);
    expect(error.message).not.toContain('hunter2');
    expect(server.connections).toBe(0);
  });

  it('connects without encryption when there is no password to protect, or when plaintext is allowed', async () => {
    const server = await serve();
    await expect(openAndClose(sessions({ allowPlaintextPassword: false }), fakeDatasource(server.port, { password: '' }))).resolves.toBe(1);
    await expect(openAndClose(sessions({ allowPlaintextPassword: true }), fakeDatasource(server.port))).resolves.toBe(1);
  });
});
