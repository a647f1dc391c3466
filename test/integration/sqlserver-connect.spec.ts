import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatasourceConnectError } from '../../src/engine/errors/datasource-errors.js';
import { SqlServerConnector } from '../../src/engine/connectors/sqlserver/sqlserver.connector.js';
import {
  describeWithSqlServer,
  resolvedSqlServerDatasource,
  withSqlServerAdmin,
  useTempSqlServerDatabase,
} from '../helpers/sqlserver-database.js';
import { expectConnectError } from '../../src/engine/connectors/testing/connect-probes.js';

describeWithSqlServer('SqlServerConnector against SQL Server: connect failures', (target) => {
  const connector = new SqlServerConnector();
  const login = `fetcher_probe_${randomBytes(4).toString('hex')}`;
  const password = `Pr0be-${randomBytes(8).toString('hex')}!`;
  const db = useTempSqlServerDatabase(target, 'connect');

  beforeAll(async () => {
    // A login without a user in the test database: SQL Server refuses it with 4060.
    await withSqlServerAdmin(target, (admin) =>
      admin.request().query(`CREATE LOGIN [${login}] WITH PASSWORD = N'${password}', CHECK_POLICY = OFF`),
    );
  }, 120_000);

  afterAll(async () => {
    await withSqlServerAdmin(target, (admin) => admin.request().query(`IF SUSER_ID(N'${login}') IS NOT NULL DROP LOGIN [${login}]`));
  });

  const attempt = (overrides: Parameters<typeof resolvedSqlServerDatasource>[1]) =>
    connector.open(resolvedSqlServerDatasource(db(), { configName: 'mssql_probe', ...overrides }), { connectTimeoutMs: 10_000 });

  const failure = async (overrides: Parameters<typeof resolvedSqlServerDatasource>[1]): Promise<DatasourceConnectError> => {
    const connectError = await expectConnectError(attempt(overrides));
    expect(connectError.message).toMatch(/^Cannot connect to SQL Server datasource "mssql_probe": /);
    for (const secret of [password, login, target.password]) expect(connectError.message).not.toContain(secret);
    return connectError;
  };

  it('connects with a valid record and answers', async () => {
    const session = await attempt({});
    await expect(session.discover(null, new AbortController().signal)).resolves.toBeDefined();
    await session.close();
  });

  it('reports a wrong password as auth_failed, without naming the login', async () => {
    expect((await failure({ userName: login, password: 'wrong-password' })).reason).toBe('auth_failed');
  });

  it('reports an unknown login as auth_failed', async () => {
    expect((await failure({ userName: `${login}_missing`, password })).reason).toBe('auth_failed');
  });

  it('reports a login that may not open the database, and an unknown database, as database_not_found', async () => {
    expect((await failure({ userName: login, password })).reason).toBe('database_not_found');
    const missing = await failure({ databaseName: `${db().name}_missing` });
    expect(missing.reason).toBe('database_not_found');
    expect(missing.message).toContain(`${db().name}_missing`);
  });

  it('reports a closed port as unreachable', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await failure({ host: '127.0.0.1', port });
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('connection refused');
  });

  // oxlint-disable-next-line vitest/expect-expect -- the assertion is conditional: a publicly trusted certificate connects
  it('verifies the server certificate under SSL mode true: a self-signed one fails without its CA', async () => {
    const outcome = await attempt({ ssl: { mode: 'true' } }).then(
      async (session) => {
        await session.close();
        return 'connected';
      },
      (e: unknown) => e,
    );
    // A server whose certificate chains to a public CA (Azure SQL) connects: nothing to refuse then.
    if (outcome !== 'connected') expect(outcome).toMatchObject({ name: 'DatasourceConnectError', reason: 'tls' });
  });
});
