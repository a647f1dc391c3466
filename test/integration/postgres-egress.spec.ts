import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { startFakePgAuthServer, type FakePgServer } from '../helpers/fake-pg-auth-server.js';
import { resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';
import { connectFailure, expectAbortKeepsSession, guardedSessions } from '../helpers/session-scenarios.js';
import { createTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';

/**
 * PostgreSQL through DatasourceSessions: the driver dials the checked address (names below exist
 * only in the test resolver, so pg resolving them itself would fail), TLS still verifies the
 * record's name, and a cleartext password request is answered only over TLS unless allowed.
 */
const run = randomUUID().slice(0, 8);
const NAMES: Record<string, string[]> = {
  [`pg-${run}.fetcher-egress.test`]: ['127.0.0.1'],
  [`pg-tls-${run}.fetcher-egress.test`]: ['127.0.0.1'],
  localhost: ['127.0.0.1'],
};
const PASSWORD = `pw-${run}`;

const sessions = (allowPlaintextPassword: boolean, lookups: string[] = []) =>
  guardedSessions(new PostgresConnector(), NAMES, allowPlaintextPassword, lookups);

const fakeRecord = (port: number, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource =>
  resolvedDatasource(
    { name: 'd', host: '127.0.0.1', port, user: 'someone', password: PASSWORD },
    { configName: 'pg_egress', ...overrides },
  );

const failure = (opening: Promise<ConnectorSession>) => connectFailure(opening, PASSWORD);

describe('PostgreSQL egress: the checked address is dialled, the name is verified', () => {
  const db = useTempDatabase('pg_egress');
  let certs: TestCertificates;
  let tlsServer: FakePgServer;

  beforeAll(async () => {
    await db().query(
      `CREATE VIEW slow AS SELECT 1 AS n, pg_sleep(30)::text AS z; CREATE TABLE small (id int PRIMARY KEY); INSERT INTO small VALUES (1), (2);`,
    );
    certs = createTestCertificates();
    tlsServer = await startFakePgAuthServer({ cert: certs.serverCert, key: certs.serverKey });
  });
  afterAll(async () => {
    await tlsServer?.close();
  });

  it('connects to a name only the guard resolves, resolving it once', async () => {
    const lookups: string[] = [];
    const session = await sessions(true, lookups).open(resolvedDatasource(db(), { host: `pg-${run}.fetcher-egress.test` }), {
      connectTimeoutMs: 5_000,
    });
    try {
      expect((await session.discover(['public'], new AbortController().signal)).tables.has('small')).toBe(true);
    } finally {
      await session.close();
    }
    expect(lookups).toEqual([`pg-${run}.fetcher-egress.test`]);
  });

  it('cancels a running statement through the checked address too (the session survives the abort)', async () => {
    const session = await sessions(true).open(resolvedDatasource(db(), { host: `pg-${run}.fetcher-egress.test` }), {
      connectTimeoutMs: 5_000,
    });
    try {
      await expectAbortKeepsSession(session, ['public']);
    } finally {
      await session.close();
    }
  });

  it('verify-full dialling 127.0.0.1 checks the certificate against the name: localhost (in the certificate) passes', async () => {
    const before = tlsServer.passwords.length;
    const error = await failure(
      sessions(false).open(fakeRecord(tlsServer.port, { host: 'localhost', ssl: { mode: 'verify-full', ca: certs.ca } }), {
        connectTimeoutMs: 5_000,
      }),
    );
    // The handshake passed: the (fake) server then refused the password it received over TLS.
    expect(error.reason).toBe('auth_failed');
    expect(tlsServer.passwords.slice(before)).toEqual([{ password: PASSWORD, tls: true }]);
  });

  it('verify-full fails for a name the certificate does not carry, although it carries the dialled IP', async () => {
    const before = tlsServer.passwords.length;
    const error = await failure(
      sessions(true).open(
        fakeRecord(tlsServer.port, { host: `pg-tls-${run}.fetcher-egress.test`, ssl: { mode: 'verify-full', ca: certs.ca } }),
        {
          connectTimeoutMs: 5_000,
        },
      ),
    );
    expect(error.reason).toBe('tls');
    expect(tlsServer.passwords.length).toBe(before);
  });
});

describe('PostgreSQL and cleartext password requests', () => {
  let plain: FakePgServer;
  let certs: TestCertificates;
  let tls: FakePgServer;

  beforeAll(async () => {
    certs = createTestCertificates();
    [plain, tls] = await Promise.all([startFakePgAuthServer(), startFakePgAuthServer({ cert: certs.serverCert, key: certs.serverKey })]);
  });
  afterAll(async () => Promise.all([plain?.close(), tls?.close()]));

  it('sends nothing over plain TCP when plaintext passwords are not allowed, and says what to change', async () => {
    const before = plain.passwords.length;
    const error = await failure(sessions(false).open(fakeRecord(plain.port), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('plaintext_password_refused');
    expect(error.message).toMatch(/^Cannot connect to PostgreSQL datasource "pg_egress": the server asked for the password in clear text/);
    expect(error.message).toContain('ALLOW_PLAINTEXT_PASSWORD=true');
    expect(error.message).toMatch(/require, verify-ca or verify-full/);
    expect(plain.passwords.length).toBe(before);
  });

  it('refuses it for internal datasources too', async () => {
    const before = plain.passwords.length;
    const error = await failure(sessions(false).open(fakeRecord(plain.port, { internal: true }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('plaintext_password_refused');
    expect(plain.passwords.length).toBe(before);
  });

  it('answers it over TLS', async () => {
    const before = tls.passwords.length;
    const error = await failure(sessions(false).open(fakeRecord(tls.port, { ssl: { mode: 'require' } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
    expect(tls.passwords.slice(before)).toEqual([{ password: PASSWORD, tls: true }]);
  });

  it('with sslmode allow, retries over TLS rather than answer in clear', async () => {
    const before = tls.passwords.length;
    const error = await failure(sessions(false).open(fakeRecord(tls.port, { ssl: { mode: 'allow' } }), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
    expect(tls.passwords.slice(before)).toEqual([{ password: PASSWORD, tls: true }]);
  });

  it('answers it over plain TCP when plaintext passwords are allowed', async () => {
    const before = plain.passwords.length;
    const error = await failure(sessions(true).open(fakeRecord(plain.port), { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('auth_failed');
    expect(plain.passwords.slice(before)).toEqual([{ password: PASSWORD, tls: false }]);
  });
});
