import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePgAuthServer, type FakePgServer } from '../helpers/fake-pg-auth-server.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTestCertificates } from '../helpers/test-certificates.js';

/**
 * A PostgreSQL server that asks for the password in clear text (`password` authentication),
 * tested through POST {id}/test: with ALLOW_PLAINTEXT_PASSWORD=false it gets nothing over plain
 * TCP, and still gets it over TLS.
 */
describe('ALLOW_PLAINTEXT_PASSWORD through the API', () => {
  const run = randomUUID().slice(0, 8);
  const password = `pw-${run}`;
  const certs = createTestCertificates();
  let plain: FakePgServer;
  let tls: FakePgServer;
  let strict: EmbeddedFetcher;
  let lax: EmbeddedFetcher;

  beforeAll(async () => {
    [plain, tls] = await Promise.all([startFakePgAuthServer(), startFakePgAuthServer({ cert: certs.serverCert, key: certs.serverKey })]);
    [strict, lax] = await Promise.all([
      startEmbeddedFetcher({ ALLOW_PLAINTEXT_PASSWORD: 'false' }),
      startEmbeddedFetcher({ ALLOW_PLAINTEXT_PASSWORD: 'true' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([strict?.close(), lax?.close()]);
    await Promise.all([plain?.close(), tls?.close()]);
  });

  const test = async (fetcher: EmbeddedFetcher, port: number, ssl?: Record<string, string>) => {
    const created = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send({
        configName: `pg_${randomUUID().slice(0, 8)}`,
        type: 'POSTGRESQL',
        host: '127.0.0.1',
        port,
        databaseName: 'd',
        userName: 'u',
        password,
        ...(ssl ? { ssl } : {}),
      });
    expect(created.status).toBe(201);
    return fetcher.http.post(`/v1/management/connections/${created.body.id}/test`);
  };

  it('refuses to answer over plain TCP: 502 plaintext_password_refused, and the server receives nothing', async () => {
    const before = plain.passwords.length;
    const response = await test(strict, plain.port);
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'plaintext_password_refused' });
    expect(response.body.message).toContain('ALLOW_PLAINTEXT_PASSWORD=true');
    expect(JSON.stringify(response.body)).not.toContain(password);
    expect(plain.passwords.length).toBe(before);
  });

  it('answers over TLS (the server then refuses the login as it always does)', async () => {
    const before = tls.passwords.length;
    const response = await test(strict, tls.port, { mode: 'verify-full', ca: certs.ca });
    expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'auth_failed' });
    expect(tls.passwords.slice(before)).toEqual([{ password, tls: true }]);
  });

  it('answers over plain TCP when ALLOW_PLAINTEXT_PASSWORD=true', async () => {
    const before = plain.passwords.length;
    const response = await test(lax, plain.port);
    expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'auth_failed' });
    expect(plain.passwords.slice(before)).toEqual([{ password, tls: false }]);
  });
});
