import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasourceConnectError } from '../../src/engine/errors/datasource-errors.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { resolvedDatasource, useTempDatabase, withAdminClient } from '../helpers/pg-database.js';
import { closedPort, connectFailureChecks, expectConnectError } from '../../src/engine/connectors/testing/connect-probes.js';

const PASSWORD = 'Sup3r-Secret-pw';
const USER = 'fetcher_probe_user';

/**
 * Connect failures against the local server. It uses trust authentication, so a wrong password
 * cannot be provoked here: `auth_failed` is covered by the classifier unit test.
 */
describe('PostgresConnector connect failures', () => {
  const connector = new PostgresConnector();
  const db = useTempDatabase('pg_connect');

  beforeAll(async () => {
    await withAdminClient((admin) => admin.query(`DROP ROLE IF EXISTS ${USER}; CREATE ROLE ${USER} LOGIN`));
  });

  afterAll(async () => {
    await withAdminClient((admin) => admin.query(`DROP ROLE IF EXISTS ${USER}`));
  });

  const failure = async (promise: Promise<unknown>): Promise<DatasourceConnectError> => {
    const connectError = await expectConnectError(promise);
    expect(connectError.configName).toBe('pg_probe');
    expect(connectError.message).toContain('"pg_probe"');
    expect(connectError.message).not.toContain(PASSWORD);
    expect(connectError.message).not.toContain(USER);
    expect(connectError.message).not.toMatch(/postgres(ql)?:\/\//);
    return connectError;
  };

  const probe = (overrides: Parameters<typeof resolvedDatasource>[1]) =>
    resolvedDatasource(db(), { configName: 'pg_probe', userName: USER, password: PASSWORD, ...overrides });

  connectFailureChecks({ open: (overrides, options) => connector.open(probe(overrides), options), failure });

  it('connects with a valid record and answers', async () => {
    const session = await connector.open(probe({}), { connectTimeoutMs: 5_000 });
    await expect(session.discover(['public'], new AbortController().signal)).resolves.toBeDefined();
    await session.close();
  });

  // Trust auth accepts any password, but an unknown role is still refused (SQLSTATE 28000).
  it('reports an unknown role as auth_failed, without naming it', async () => {
    const error = await failure(connector.open(probe({ userName: `${USER}_missing` }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
  });

  it('allow: keeps the auth failure when the TLS retry finds no SSL on the server', async () => {
    const error = await failure(
      connector.open(probe({ userName: `${USER}_missing`, ssl: { mode: 'allow' } }), { connectTimeoutMs: 5_000 }),
    );
    expect(error.reason).toBe('auth_failed');
  });

  it('reports a closed port as unreachable', async () => {
    const error = await failure(connector.open(probe({ port: await closedPort() }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('connection refused');
  });

  it('reports an unknown database as database_not_found', async () => {
    const error = await failure(connector.open(probe({ databaseName: `${db().name}_missing` }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('database_not_found');
    expect(error.message).toContain(`${db().name}_missing`);
  });

  it('gives up on a silent address within the connect timeout', async () => {
    const started = Date.now();
    // TEST-NET-1: packets go nowhere, so the connect hangs (or the network says unreachable).
    const error = await failure(connector.open(probe({ host: '192.0.2.1' }), { connectTimeoutMs: 500 }));
    expect(['timeout', 'unreachable']).toContain(error.reason);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  // The local server runs without SSL.
  it('fails with tls when the SSL mode requires TLS the server does not offer', async () => {
    const error = await failure(connector.open(probe({ ssl: { mode: 'require' } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('tls');
    expect(error.message).toContain('does not support SSL');
  });

  it('falls back to plain TCP for prefer and uses plain TCP for allow', async () => {
    for (const mode of ['prefer', 'allow', 'disable', '']) {
      const session = await connector.open(probe({ ssl: { mode } }), { connectTimeoutMs: 5_000 });
      // The session is usable, not merely opened: it answers a discovery over the plain connection.
      const snapshot = await session.discover(null, new AbortController().signal);
      expect(snapshot.tables, `SSL mode '${String(mode)}'`).toBeInstanceOf(Map);
      await session.close();
    }
  });

  it('rejects an unknown SSL mode as tls', async () => {
    const error = await failure(connector.open(probe({ ssl: { mode: 'sometimes' } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('tls');
  });
});
