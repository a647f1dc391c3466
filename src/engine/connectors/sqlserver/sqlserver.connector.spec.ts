import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestCertificates, type TestCertificates } from '../../../../test/helpers/test-certificates.js';
import { DatasourceType } from '../datasource-type.js';
import { DatasourceConnectError } from '../../errors/datasource-errors.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import type { SqlServerSession } from './sqlserver-session.js';
import { SqlServerConnector } from './sqlserver.connector.js';
import { fakeDatasource } from './testing/fake-datasource.js';
import { startFakeTdsServer, type FakeTdsServer, type FakeTdsServerOptions } from './testing/fake-tds-server.js';
import { closedPort, expectConnectError } from '../testing/connect-probes.js';

/**
 * open() through the real mssql/tedious client against fake servers: what SQL Server answers to
 * a refused login, a missing database, encryption it requires or lacks, a silent host, TLS 8.0.
 */
const connector = new SqlServerConnector();
const servers: FakeTdsServer[] = [];

const serve = async (options: FakeTdsServerOptions): Promise<FakeTdsServer> => {
  const server = await startFakeTdsServer(options);
  servers.push(server);
  return server;
};

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const failure = async (ds: ResolvedDatasource, connectTimeoutMs = 5_000): Promise<DatasourceConnectError> => {
  const connectError = await expectConnectError(connector.open(ds, { connectTimeoutMs }));
  expect(connectError.configName).toBe('mssql_fake');
  expect(connectError.message).toMatch(/^Cannot connect to SQL Server datasource "mssql_fake": /);
  expect(connectError.message).not.toContain('hunter2');
  expect(connectError.message).not.toContain('svc_fetch');
  expect(connectError.message).not.toMatch(/mssql:\/\/|Password=/i);
  return connectError;
};

describe('SqlServerConnector', () => {
  it('is the SQL_SERVER engine, with dbo as default schema unless the connection names one', () => {
    expect(connector.type).toBe(DatasourceType.SqlServer);
    expect(connector.defaultSchema(fakeDatasource(1))).toBe('dbo');
    expect(connector.defaultSchema(fakeDatasource(1, { schemaName: 'Sales' }))).toBe('Sales');
    expect(connector.defaultSchema(fakeDatasource(1, { schemaName: '' }))).toBe('dbo');
  });

  it('opens a session on a server that accepts the login', async () => {
    const server = await serve({});
    const session = (await connector.open(fakeDatasource(server.port), { connectTimeoutMs: 5_000 })) as SqlServerSession;
    expect(session.spid).toBe(1);
    await session.close();
  });

  it('reports a refused login (18456) as auth_failed, without naming the user', async () => {
    const server = await serve({ loginErrors: [{ number: 18456, message: "Login failed for user 'svc_fetch'." }] });
    const error = await failure(fakeDatasource(server.port));
    expect(error.reason).toBe('auth_failed');
    expect(error.message).toContain('authentication failed');
  });

  it('reports an expired password as auth_failed, saying so', async () => {
    const server = await serve({
      loginErrors: [{ number: 18487, message: "Login failed for user 'svc_fetch'. Reason: The password of the account has expired." }],
    });
    const error = await failure(fakeDatasource(server.port));
    expect(error.reason).toBe('auth_failed');
    expect(error.message).toContain('password of the login has expired');
  });

  it('reports "cannot open database" (4060, followed by 18456) as database_not_found', async () => {
    const server = await serve({
      loginErrors: [
        { number: 4060, message: 'Cannot open database "ledger" requested by the login. The login failed.' },
        { number: 18456, message: "Login failed for user 'svc_fetch'." },
      ],
    });
    const error = await failure(fakeDatasource(server.port));
    expect(error.reason).toBe('database_not_found');
    expect(error.message).toContain(`database "ledger" does not exist on 127.0.0.1:${server.port}`);
  });

  it('reports a server that requires encryption, with SSL disabled, as tls naming the modes to use', async () => {
    const server = await serve({ encryption: 'REQ' });
    const error = await failure(fakeDatasource(server.port, { ssl: { mode: 'disable' } }));
    expect(error.reason).toBe('tls');
    expect(error.message).toContain('use SSL mode "true" or "strict"');
  });

  it('refuses a session that was not encrypted although the SSL mode requires it, before the login is sent', async () => {
    const server = await serve({ encryption: 'NOT_SUP' });
    const error = await failure(fakeDatasource(server.port, { ssl: { mode: 'true' } }));
    expect(error.reason).toBe('tls');
    expect(error.message).toContain('did not encrypt the connection');
    // tedious would have sent LOGIN7, password included, in clear.
    expect(server.logins).toBe(0);
  });

  it('reports a closed port as unreachable', async () => {
    const error = await failure(fakeDatasource(await closedPort()));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('connection refused');
  });

  it('reports a server that never answers as timeout, within the deadline', async () => {
    const server = await serve({ silent: true });
    const started = Date.now();
    const error = await failure(fakeDatasource(server.port), 400);
    expect(error.reason).toBe('timeout');
    expect(error.message).toContain('within 400 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops connecting at once when aborted, with the abort reason', async () => {
    const server = await serve({ silent: true });
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const opening = connector.open(fakeDatasource(server.port), { connectTimeoutMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await expect(opening).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('rejects an unknown SSL mode before connecting', async () => {
    const error = await failure(fakeDatasource(1, { ssl: { mode: 'verify-full' } }));
    expect(error.reason).toBe('tls');
    expect(error.message).toContain('unsupported SSL mode');
  });

  describe('SSL mode true (TLS negotiated inside the TDS 7.x pre-login)', () => {
    let certs: TestCertificates;

    beforeAll(() => {
      certs = createTestCertificates();
    });

    it('logs in once the server has negotiated TLS', async () => {
      const server = await serve({ preloginTls: { cert: certs.serverCert, key: certs.serverKey } });
      const session = (await connector.open(fakeDatasource(server.port, { ssl: { mode: 'true', ca: certs.ca } }), {
        connectTimeoutMs: 5_000,
      })) as SqlServerSession;
      expect(session.spid).toBe(1);
      await session.close();
      expect(server.logins).toBeGreaterThan(0);
    });

    it('refuses a certificate that does not verify, before the login is sent', async () => {
      const server = await serve({ preloginTls: { cert: certs.serverCert, key: certs.serverKey } });
      const error = await failure(fakeDatasource(server.port, { ssl: { mode: 'true', ca: certs.otherCa } }));
      expect(error.reason).toBe('tls');
      expect(server.logins).toBe(0);
    });
  });

  describe('strict (TDS 8.0) encryption', () => {
    let certs: TestCertificates;

    beforeAll(() => {
      certs = createTestCertificates();
    });

    it('connects when the server certificate verifies against the given CA', async () => {
      const server = await serve({ tls: { cert: certs.serverCert, key: certs.serverKey } });
      const session = await connector.open(fakeDatasource(server.port, { ssl: { mode: 'strict', ca: certs.ca } }), {
        connectTimeoutMs: 5_000,
      });
      await expect(session.discover(['dbo'], new AbortController().signal)).resolves.toBeDefined();
      await session.close();
    });

    it('verifies the host name too', async () => {
      // Another loopback address: the certificate names 127.0.0.1 and localhost only.
      const server = await serve({ host: '127.0.0.2', tls: { cert: certs.serverCert, key: certs.serverKey } });
      const error = await failure(fakeDatasource(server.port, { host: '127.0.0.2', ssl: { mode: 'strict', ca: certs.ca } }));
      expect(error.reason).toBe('tls');
      expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('refuses a certificate that does not verify (no CA, another CA)', async () => {
      const server = await serve({ tls: { cert: certs.serverCert, key: certs.serverKey } });
      for (const ca of [undefined, certs.otherCa]) {
        const error = await failure(fakeDatasource(server.port, { ssl: { mode: 'strict', ...(ca === undefined ? {} : { ca }) } }));
        expect(error.reason).toBe('tls');
        expect(error.message).toContain('TLS negotiation failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)');
      }
    });

    it('reports a server without TDS 8.0 as tls', async () => {
      const server = await serve({});
      const error = await failure(fakeDatasource(server.port, { ssl: { mode: 'strict', ca: certs.ca } }));
      expect(error.reason).toBe('tls');
      expect(error.message).toContain('strict encryption needs SQL Server 2022 or later');
    });
  });
});
