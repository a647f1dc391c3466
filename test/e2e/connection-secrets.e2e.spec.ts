import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { startFakePgAuthServer, type FakePgServer } from '../helpers/fake-pg-auth-server.js';
import { useTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/**
 * A stored password goes only where it was entered: pointing a connection at another server
 * (here a fake PostgreSQL that asks for the password in clear text and records it) forgets it.
 */
describe('a stored secret goes only where it was entered', () => {
  const source = useTempDatabase('e2e_secrets');
  let fetcher: EmbeddedFetcher;
  let fake: FakePgServer;

  beforeAll(async () => {
    await source().query('CREATE TABLE accounts (id int PRIMARY KEY)');
    [fetcher, fake] = await Promise.all([startEmbeddedFetcher(), startFakePgAuthServer()]);
  });
  afterAll(async () => {
    await Promise.all([fetcher?.close(), fake?.close()]);
  });

  const create = async (password: string, extra: Record<string, unknown> = {}) => {
    const response = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send(pgConnectionBody(source(), { password, ...extra }));
    expect(response.status).toBe(201);
    return response.body as { id: string; configName: string; hasPassword: boolean };
  };
  const patch = (id: string, body: object) => fetcher.http.patch(`/v1/management/connections/${id}`).send(body);

  it('PATCHing the port to another server clears the password: the server never receives it, until a new one is given', async () => {
    const original = 'first-Secret-1';
    const connection = await create(original);
    expect((await fetcher.http.post(`/v1/management/connections/${connection.id}/test`)).status).toBe(200);

    const moved = await patch(connection.id, { port: fake.port });
    expect(moved.status).toBe(200);
    expect(moved.body.hasPassword).toBe(false);
    expect((await fetcher.http.get(`/v1/management/connections/${connection.id}`)).body.hasPassword).toBe(false);

    const uses = [
      await fetcher.http.post(`/v1/management/connections/${connection.id}/test`),
      await fetcher.http.get(`/v1/management/connections/${connection.id}/schema`),
      await fetcher.http
        .post('/v1/management/connections/validate-schema')
        .send({ mappedFields: { [connection.configName]: { accounts: ['id'] } } }),
      await fetcher.http
        .post('/v1/fetcher')
        .send({ dataRequest: { mappedFields: { [connection.configName]: { accounts: ['id'] } } }, metadata: { source: 'reporter' } }),
    ];
    for (const response of uses) {
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('FET-1024');
      expect(JSON.stringify(response.body)).not.toContain(original);
    }
    expect(fake.connections).toBe(0);
    expect(fake.passwords).toEqual([]);

    const given = await patch(connection.id, { password: 'second-Secret-2' });
    expect(given.body.hasPassword).toBe(true);
    const test = await fetcher.http.post(`/v1/management/connections/${connection.id}/test`);
    expect(test.status).toBe(502);
    expect(test.body.reason).toBe('auth_failed');
    expect(fake.passwords.map((received) => received.password)).toEqual(['second-Secret-2']);
  });

  it.each([
    ['host', (db: TempDatabase) => ({ host: db.host === '127.0.0.1' ? 'localhost' : '127.0.0.1' })],
    ['databaseName', () => ({ databaseName: 'postgres' })],
    ['type', () => ({ type: 'MYSQL', port: 3306 })],
    ['ssl.mode', () => ({ ssl: { mode: 'require' } })],
    ['ssl.ca', () => ({ ssl: { ca: '-----BEGIN CERTIFICATE-----another' } })],
    ['ssl: null', () => ({ ssl: null })],
  ])('a new %s without a password clears it too', async (what, change) => {
    // No SSL mode for the type change: PostgreSQL's modes are not MySQL's.
    const ssl = what === 'type' ? {} : { ssl: { mode: 'prefer', ca: '-----BEGIN CERTIFICATE-----first' } };
    const connection = await create('kept-Secret-3', ssl);
    const response = await patch(connection.id, change(source()));
    expect(response.status).toBe(200);
    expect(response.body.hasPassword).toBe(false);
  });

  it('keeps the password when the endpoint stays the same: metadata, schema, user, the same values again, or a new password with the move', async () => {
    const connection = await create('kept-Secret-4', { ssl: { mode: 'prefer', ca: '-----BEGIN CERTIFICATE-----same' } });
    for (const body of [
      { metadata: { team: 'x' } },
      { schema: 'public' },
      { userName: source().user },
      {
        host: source().host,
        port: source().port,
        databaseName: source().name,
        ssl: { mode: 'prefer', ca: '-----BEGIN CERTIFICATE-----same' },
      },
      { port: fake.port, password: 'moved-along-5' },
    ]) {
      const response = await patch(connection.id, body);
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(response.body.hasPassword, JSON.stringify(body)).toBe(true);
    }
  });

  it('wipes the secrets of a deleted connection', async () => {
    const connection = await create('deleted-Secret-6', { ssl: { mode: 'prefer', ca: 'CA', cert: 'CERT', key: 'KEY' } });
    expect((await fetcher.http.delete(`/v1/management/connections/${connection.id}`)).status).toBe(204);
    const [row] = await fetcher.app.get(DataSource).query('SELECT * FROM connections WHERE id = ?', [connection.id]);
    expect(row.deleted_at).not.toBeNull();
    expect(row).toMatchObject({ password_encrypted: '', ssl_ca_encrypted: null, ssl_cert_encrypted: null, ssl_key_encrypted: null });
  });
});
