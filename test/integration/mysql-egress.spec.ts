import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { MySqlConnector } from '../../src/engine/connectors/mysql/mysql.connector.js';
import { startFakeMySqlAuthServer, type FakeMySqlServer } from '../helpers/fake-mysql-auth-server.js';
import { resolvedMySqlDatasource, useTempMariaDatabase, withMariaAdmin } from '../helpers/mariadb-database.js';
import { connectFailure, expectAbortKeepsSession, guardedSessions } from '../helpers/session-scenarios.js';
import { createTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';

/**
 * MySQL/MariaDB through DatasourceSessions: mysql2 gets its socket from a factory dialling the
 * checked address (the names below exist only in the test resolver), keeps the name for TLS, and
 * answers mysql_clear_password only over TLS unless plaintext passwords are allowed.
 */
const run = randomUUID().slice(0, 8);
const NAME = `my-${run}.fetcher-egress.test`;
const OTHER_NAME = `my-tls-${run}.fetcher-egress.test`;
const NAMES: Record<string, string[]> = { [NAME]: ['127.0.0.1'], [OTHER_NAME]: ['127.0.0.1'], localhost: ['127.0.0.1'] };
const USER = `fetcher_egress_${run}`;
const PASSWORD = `Pw-${run}`;

const sessions = (allowPlaintextPassword: boolean, lookups: string[] = []) =>
  guardedSessions(new MySqlConnector(), NAMES, allowPlaintextPassword, lookups);

const failure = (opening: Promise<ConnectorSession>) => connectFailure(opening, PASSWORD);

describe('MySQL egress against the local MariaDB', () => {
  const db = useTempMariaDatabase('my_egress');
  const record = (overrides: Partial<ResolvedDatasource> = {}) =>
    resolvedMySqlDatasource(db(), { configName: 'my_egress', host: NAME, userName: USER, password: PASSWORD, ...overrides });

  beforeAll(async () => {
    await db().query('CREATE VIEW slow AS SELECT 1 AS n, SLEEP(30) AS z');
    await db().query('CREATE TABLE small (id int PRIMARY KEY)');
    await db().query('INSERT INTO small VALUES (1), (2)');
    await withMariaAdmin((admin) =>
      admin.query(`CREATE USER '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON \`${db().name}\`.* TO '${USER}'@'%';`),
    );
  });
  afterAll(async () => {
    await withMariaAdmin((admin) => admin.query(`DROP USER IF EXISTS '${USER}'@'%'`));
  });

  it.each(['preferred', 'false', '', null])(
    'connects by the checked address with SSL mode %j, with a native password login',
    async (mode) => {
      const lookups: string[] = [];
      // The native password plugin never sends the password itself: refusing plaintext changes nothing.
      const session = await sessions(false, lookups).open(record({ ssl: { mode } }), { connectTimeoutMs: 5_000 });
      try {
        expect((await session.discover(null, new AbortController().signal)).tables.has('small')).toBe(true);
      } finally {
        await session.close();
      }
      expect(lookups).toEqual([NAME]);
    },
  );

  // The local server runs without SSL.
  it.each(['true', 'skip-verify'])('still asks for TLS with SSL mode %s and reports the server has none', async (mode) => {
    const error = await failure(sessions(false).open(record({ ssl: { mode } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('tls');
    expect(error.message).toContain('does not support SSL');
  });

  it('kills a running statement through the checked address too (the session survives the abort)', async () => {
    const session = await sessions(false).open(record(), { connectTimeoutMs: 5_000 });
    try {
      await expectAbortKeepsSession(session, null);
    } finally {
      await session.close();
    }
  });
});

describe('MySQL and mysql_clear_password', () => {
  let certs: TestCertificates;
  let plain: FakeMySqlServer;
  let tls: FakeMySqlServer;
  const record = (port: number, overrides: Partial<ResolvedDatasource> = {}) =>
    resolvedMySqlDatasource(
      { name: 'd', host: '127.0.0.1', port, user: 'ldap_user', password: PASSWORD },
      { configName: 'my_clear', ...overrides },
    );

  beforeAll(async () => {
    certs = createTestCertificates();
    [plain, tls] = await Promise.all([
      startFakeMySqlAuthServer(),
      startFakeMySqlAuthServer({ cert: certs.serverCert, key: certs.serverKey }),
    ]);
  });
  afterAll(async () => Promise.all([plain?.close(), tls?.close()]));

  it('sends nothing without TLS when plaintext passwords are not allowed, and says what to change', async () => {
    const before = plain.passwords.length;
    const error = await failure(sessions(false).open(record(plain.port), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('plaintext_password_refused');
    expect(error.message).toMatch(
      /^Cannot connect to MySQL datasource "my_clear": the server asked for the password in clear text \(mysql_clear_password\)/,
    );
    expect(error.message).toContain('ALLOW_PLAINTEXT_PASSWORD=true');
    expect(plain.passwords.length).toBe(before);
  });

  it('answers it without TLS when plaintext passwords are allowed', async () => {
    const before = plain.passwords.length;
    const error = await failure(sessions(true).open(record(plain.port), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
    expect(plain.passwords.slice(before)).toEqual([{ password: PASSWORD, tls: false }]);
  });

  it('answers it over TLS', async () => {
    const before = tls.passwords.length;
    const error = await failure(sessions(false).open(record(tls.port, { ssl: { mode: 'skip-verify' } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
    expect(tls.passwords.slice(before)).toEqual([{ password: PASSWORD, tls: true }]);
  });

  it('SSL mode true dialling 127.0.0.1 verifies the certificate against the name: localhost passes, another name fails', async () => {
    const before = tls.passwords.length;
    const ok = await failure(
      sessions(false).open(record(tls.port, { host: 'localhost', ssl: { mode: 'true', ca: certs.ca } }), { connectTimeoutMs: 5_000 }),
    );
    expect(ok.reason).toBe('auth_failed');
    expect(tls.passwords.length).toBe(before + 1);
    // The certificate names 127.0.0.1 too: only a check against the name can fail here.
    const wrong = await failure(
      sessions(false).open(record(tls.port, { host: OTHER_NAME, ssl: { mode: 'true', ca: certs.ca } }), { connectTimeoutMs: 5_000 }),
    );
    expect(wrong.reason).toBe('tls');
    expect(tls.passwords.length).toBe(before + 1);
  });
});
