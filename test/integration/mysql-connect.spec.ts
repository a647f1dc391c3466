import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasourceConnectError } from '../../src/engine/errors/datasource-errors.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import {
  createTempMariaDatabase,
  createTempMariaUser,
  resolvedMySqlDatasource,
  type TempMariaDatabase,
  type TempMariaUser,
} from '../helpers/mariadb-database.js';
import { closedPort, connectFailureChecks, expectConnectError } from '../../src/engine/connectors/testing/connect-probes.js';

/** Logins are server-wide: every run makes its own (fetcher_probe_<random>) and drops them. */
const USER_PREFIX = 'fetcher_probe';

describe('MySqlConnector connect failures', () => {
  const connector = new MySqlConnector();
  let db: TempMariaDatabase;
  /** SELECT on the database. */
  let user: TempMariaUser;
  /** No rights on the database. */
  let outsider: TempMariaUser;

  beforeAll(async () => {
    db = await createTempMariaDatabase('my_connect');
    user = await createTempMariaUser(`${USER_PREFIX}_u`, { grantSelectOn: db.name });
    outsider = await createTempMariaUser(`${USER_PREFIX}_o`);
  });

  afterAll(async () => {
    await Promise.all([db?.drop(), user?.drop(), outsider?.drop()]);
  });

  const failure = async (promise: Promise<unknown>): Promise<DatasourceConnectError> => {
    const connectError = await expectConnectError(promise);
    expect(connectError.configName).toBe('my_probe');
    expect(connectError.message).toMatch(/^Cannot connect to MySQL datasource "my_probe": /);
    expect(connectError.message).not.toContain(user.password);
    expect(connectError.message).not.toContain(outsider.password);
    expect(connectError.message).not.toContain(USER_PREFIX);
    expect(connectError.message).not.toMatch(/mysql:\/\//);
    return connectError;
  };

  const probe = (overrides: Parameters<typeof resolvedMySqlDatasource>[1]) =>
    resolvedMySqlDatasource(db, { configName: 'my_probe', userName: user.name, password: user.password, ...overrides });

  connectFailureChecks({ open: (overrides, options) => connector.open(probe(overrides), options), failure });

  it('connects with a valid record and answers', async () => {
    const session = await connector.open(probe({}), { connectTimeoutMs: 5_000 });
    await expect(session.discover(null, new AbortController().signal)).resolves.toBeDefined();
    await session.close();
  });

  it('reports a wrong password as auth_failed, without naming the user', async () => {
    const error = await failure(connector.open(probe({ password: 'wrong-password' }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
  });

  it('reports an unknown user as auth_failed', async () => {
    const error = await failure(connector.open(probe({ userName: `${user.name}_missing` }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
  });

  it('reports a login without rights on the database as auth_failed (ER_DBACCESS_DENIED_ERROR)', async () => {
    const error = await failure(
      connector.open(probe({ userName: outsider.name, password: outsider.password }), { connectTimeoutMs: 5_000 }),
    );
    expect(error.reason).toBe('auth_failed');
    expect(error.message).toContain(`may not use database "${db.name}"`);
  });

  it('reports a closed port as unreachable', async () => {
    const error = await failure(connector.open(probe({ port: await closedPort() }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('connection refused');
  });

  it('reports an unknown database as database_not_found', async () => {
    // root: a login without global rights is told "access denied" instead, so as not to reveal names.
    const error = await failure(
      connector.open(resolvedMySqlDatasource(db, { configName: 'my_probe', databaseName: `${db.name}_missing` }), {
        connectTimeoutMs: 5_000,
      }),
    );
    expect(error.reason).toBe('database_not_found');
    expect(error.message).toContain(`${db.name}_missing`);
  });

  // The local server runs without SSL.
  it.each(['true', 'skip-verify'])('fails with tls when SSL mode %s requires TLS the server does not offer', async (mode) => {
    const error = await failure(connector.open(probe({ ssl: { mode } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('tls');
    expect(error.message).toContain('does not support SSL');
  });

  it('uses plain TCP for false/empty modes and falls back to it for preferred when the server has no TLS', async () => {
    for (const mode of ['preferred', 'false', '', null]) {
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
