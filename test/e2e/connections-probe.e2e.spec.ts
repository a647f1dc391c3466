import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePgAuthServer } from '../helpers/fake-pg-auth-server.js';
import { registerPostgres, startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { createTestCertificates } from '../helpers/test-certificates.js';
import { useTempDatabase } from '../helpers/pg-database.js';

/** The endpoints that reach the database: {id}/test, {id}/schema, validate-schema. */
describe('connections API: test, schema, validate-schema', () => {
  let fetcher: EmbeddedFetcher;
  const source = useTempDatabase('e2e_probe');
  let fakeAuth: Awaited<ReturnType<typeof startFakePgAuthServer>>;

  beforeAll(async () => {
    await source().query(`
      CREATE TABLE public.accounts (id bigint PRIMARY KEY, email text, created_at timestamptz);
      CREATE TABLE public."Mixed Case" ("Zeta" int, alpha int);
      CREATE SCHEMA accounting;
      CREATE TABLE accounting.invoices (id int PRIMARY KEY, amount numeric(12,2), due date);
      CREATE VIEW accounting.open_invoices AS SELECT id, amount FROM accounting.invoices;
    `);
    fakeAuth = await startFakePgAuthServer();
    fetcher = await startEmbeddedFetcher();
  });

  afterAll(async () => {
    await fetcher?.close();
    await fakeAuth?.close();
  });

  const register = (overrides: { port?: number; host?: string } = {}) =>
    registerPostgres(fetcher.http, source(), { configName: `pg_${randomUUID().slice(0, 8)}`, product: 'reporter', ...overrides });

  describe('POST {id}/test', () => {
    it('answers 200 with a latency against a live PostgreSQL', async () => {
      const { id } = await register();
      const response = await fetcher.http.post(`/v1/management/connections/${id}/test`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'success', message: 'Connection successful', latencyMs: expect.any(Number) });
      expect(response.body.latencyMs).toBeGreaterThan(0);
    });

    it('answers 502 auth_failed for a refused password, without any secret', async () => {
      const { id } = await register({ port: fakeAuth.port });
      const response = await fetcher.http.post(`/v1/management/connections/${id}/test`);
      expect(response.status).toBe(502);
      expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'auth_failed' });
      expect(JSON.stringify(response.body)).not.toMatch(/not-needed-with-trust-auth|postgres:\/\//);
    });

    it('answers 502 unreachable for a closed port', async () => {
      const { id } = await register({ port: 1 });
      const response = await fetcher.http.post(`/v1/management/connections/${id}/test`);
      expect(response.status).toBe(502);
      expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'unreachable' });
    });

    it('answers 502 database_not_found for a database that does not exist', async () => {
      const created = await fetcher.http
        .post('/v1/management/connections')
        .set('X-Product-Name', 'reporter')
        .send(pgConnectionBody(source(), { databaseName: 'no_such_db_x', password: 'x' }));
      const response = await fetcher.http.post(`/v1/management/connections/${created.body.id}/test`);
      expect(response.status).toBe(502);
      expect(response.body.reason).toBe('database_not_found');
    });

    it('allows 10 calls a minute per connection, then 429 with Retry-After', async () => {
      const { id } = await register({ port: 1 });
      const other = await register({ port: 1 });
      const statuses = [];
      for (let i = 0; i < 10; i += 1) statuses.push((await fetcher.http.post(`/v1/management/connections/${id}/test`)).status);
      expect(statuses.every((status) => status === 502)).toBe(true);
      const eleventh = await fetcher.http.post(`/v1/management/connections/${id}/test`);
      expect(eleventh.status).toBe(429);
      expect(eleventh.body.code).toBe('FET-1070');
      expect(Number(eleventh.headers['retry-after'])).toBeGreaterThanOrEqual(50);
      expect(Number(eleventh.headers['retry-after'])).toBeLessThanOrEqual(60);
      // The limit is per connection.
      expect((await fetcher.http.post(`/v1/management/connections/${other.id}/test`)).status).toBe(502);
    });

    describe('with TLS: the stored CA, certificate and key are what the driver uses', () => {
      const certs = createTestCertificates();
      let tlsServer: Awaited<ReturnType<typeof startFakePgAuthServer>>;
      beforeAll(async () => {
        tlsServer = await startFakePgAuthServer({ cert: certs.serverCert, key: certs.serverKey, clientCa: certs.ca });
      });
      afterAll(async () => tlsServer?.close());

      const testWith = async (ssl: Record<string, string>) => {
        const created = await fetcher.http
          .post('/v1/management/connections')
          .set('X-Product-Name', 'reporter')
          .send(
            pgConnectionBody(
              { host: '127.0.0.1', port: tlsServer.port, name: 'd', user: 'u' },
              { configName: `tls_${randomUUID().slice(0, 8)}`, password: 'p', ssl },
            ),
          );
        expect(created.status).toBe(201);
        return fetcher.http.post(`/v1/management/connections/${created.body.id}/test`);
      };

      it('verify-full with the right CA passes the handshake and presents the client certificate', async () => {
        const response = await testWith({ mode: 'verify-full', ca: certs.ca, cert: certs.clientCert, key: certs.clientKey });
        // The handshake succeeded: the failure is the (fake) server refusing the password after it.
        expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'auth_failed' });
        expect(tlsServer.clientCertificates).toContain('fetcher-test-client');
      });

      it('verify-full with another CA fails as tls', async () => {
        const response = await testWith({ mode: 'verify-full', ca: certs.otherCa });
        expect(response.status).toBe(502);
        expect(response.body.reason).toBe('tls');
      });

      it('verify-ca without any CA fails as tls (the server certificate is not trusted)', async () => {
        expect((await testWith({ mode: 'verify-ca' })).body.reason).toBe('tls');
      });
    });

    it('answers 404 for an unknown connection', async () => {
      expect((await fetcher.http.post(`/v1/management/connections/${randomUUID()}/test`)).status).toBe(404);
    });
  });

  describe('GET {id}/schema', () => {
    it('returns exactly the tables and columns of every schema: sorted tables, fields in column order', async () => {
      const { id, configName } = await register();
      const response = await fetcher.http.get(`/v1/management/connections/${id}/schema`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id,
        configName,
        databaseName: source().name,
        type: 'POSTGRESQL',
        tables: [
          { name: 'Mixed Case', fields: ['Zeta', 'alpha'] },
          { name: 'accounting.invoices', fields: ['id', 'amount', 'due'] },
          { name: 'accounting.open_invoices', fields: ['id', 'amount'] },
          { name: 'accounts', fields: ['id', 'email', 'created_at'] },
        ],
      });
    });

    it('answers 502 with a reason when the database cannot be reached', async () => {
      const { id } = await register({ port: 1 });
      const response = await fetcher.http.get(`/v1/management/connections/${id}/schema`);
      expect(response.status).toBe(502);
      expect(response.body).toMatchObject({ code: 'FET-1041', reason: 'unreachable' });
    });
  });

  describe('POST validate-schema', () => {
    const validate = (mappedFields: object) => fetcher.http.post('/v1/management/connections/validate-schema').send({ mappedFields });

    it('answers 200 when every datasource, table and field exists', async () => {
      const { configName } = await register();
      const response = await validate({
        [configName]: { accounts: ['id', 'email'], 'public.accounts': ['*'], 'accounting.invoices': ['amount'] },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: 'success',
        message: 'Schema validated successfully. All datasources, tables, and fields exist.',
      });
    });

    it('answers 422 FET-1060 listing every unknown datasource, table and field', async () => {
      const { configName } = await register();
      const response = await validate({
        [configName]: {
          accounts: ['id', 'emial', 'nick'],
          ghosts: ['id'],
          'nowhere.things': ['*'],
          'accounting.invoices': ['amount', 'total'],
        },
        no_such_datasource: { accounts: ['id'] },
      });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('FET-1060');
      expect(response.body.details).toEqual(
        [
          { type: 'table_not_found', datasource: configName, table: 'ghosts' },
          { type: 'field_not_found', datasource: configName, table: 'accounting.invoices', field: 'total' },
          { type: 'field_not_found', datasource: configName, table: 'accounts', field: 'emial' },
          { type: 'field_not_found', datasource: configName, table: 'accounts', field: 'nick' },
          { type: 'table_not_found', datasource: configName, table: 'nowhere.things' },
          { type: 'datasource_not_found', datasource: 'no_such_datasource' },
        ].sort((a, b) =>
          `${a.datasource}\0${a.table ?? ''}\0${'field' in a ? a.field : ''}` <
          `${b.datasource}\0${b.table ?? ''}\0${'field' in b ? b.field : ''}`
            ? -1
            : 1,
        ),
      );
    });

    it('answers 400 FET-0401 naming the offending member by its path in this body, which has no dataRequest', async () => {
      const { configName } = await register();
      const response = await validate({ [configName]: { accounts: [] } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0401');
      expect(response.body.fields).toEqual({
        [`mappedFields.${configName}.accounts`]: `field list of '${configName}.accounts' must be a non-empty array`,
      });
    });

    it('uses the cache, and a PATCH of the connection makes a new column visible', async () => {
      const { id, configName } = await register();
      expect((await validate({ [configName]: { accounts: ['id'] } })).status).toBe(200);
      await source().query('ALTER TABLE accounts ADD COLUMN nickname text');
      // Within the TTL the cached snapshot answers: the new column is not seen yet.
      expect((await validate({ [configName]: { accounts: ['nickname'] } })).status).toBe(422);
      expect((await fetcher.http.patch(`/v1/management/connections/${id}`).send({ metadata: { touched: true } })).status).toBe(200);
      expect((await validate({ [configName]: { accounts: ['nickname'] } })).status).toBe(200);
      await source().query('ALTER TABLE accounts DROP COLUMN nickname');
    });

    it('reports a datasource that cannot be reached with its reason', async () => {
      const { configName } = await register({ port: 1 });
      const response = await validate({ [configName]: { accounts: ['id'] } });
      expect(response.status).toBe(422);
      expect(response.body.details).toEqual([
        expect.objectContaining({ type: 'datasource_unavailable', datasource: configName, reason: 'unreachable' }),
      ]);
    });

    it.each([
      ['no mappedFields', undefined, 'FET-0402'],
      ['an empty mappedFields', {}, 'FET-0401'],
      ['11 datasources', Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`ds${i}`, { t: ['id'] }])), 'FET-1061'],
    ])('refuses %s with 400', async (_name, mappedFields, code) => {
      const response = await fetcher.http
        .post('/v1/management/connections/validate-schema')
        .send(mappedFields === undefined ? {} : { mappedFields });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe(code);
    });
  });
});
