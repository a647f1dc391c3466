import { createDecipheriv, hkdfSync, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalDatasourceId } from '../../src/config/internal-datasources.config.js';
import { registerPostgres, startEmbeddedFetcher, TEST_MASTER_KEY, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/** Independent of src/: the credentials key (docs/value-mapping.md, "The stored object") and sealed format (docs/security.md). */
function openCredential(sealed: string): string {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(TEST_MASTER_KEY, 'base64'), Buffer.alloc(0), 'fetcher-credentials-v1', 32));
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}

let source: TempDatabase;
beforeAll(async () => {
  source = await createTempDatabase('e2e_sec');
  await source.query("CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (2, 'b@x'), (1, 'a@x');");
});
afterAll(async () => source?.drop());

describe('secrets at rest', () => {
  let fetcher: EmbeddedFetcher;
  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher();
  });
  afterAll(async () => fetcher?.close());

  it('stores password, CA, certificate and key encrypted with their key version, and never returns them', async () => {
    const secrets = {
      password: 'pw-Plain-123',
      ca: '-----BEGIN CERTIFICATE-----CA',
      cert: '-----BEGIN CERTIFICATE-----CERT',
      key: '-----BEGIN PRIVATE KEY-----KEY',
    };
    const created = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send(
        pgConnectionBody(source, {
          password: secrets.password,
          ssl: { mode: 'disable', ca: secrets.ca, cert: secrets.cert, key: secrets.key },
        }),
      );
    expect(created.status).toBe(201);
    const [row] = await fetcher.app.get(DataSource).query('SELECT * FROM connections WHERE id = ?', [created.body.id]);
    const stored = JSON.stringify(row);
    for (const secret of Object.values(secrets)) expect(stored).not.toContain(secret);
    expect(row.encryption_key_version).toBe('1');
    expect(openCredential(row.password_encrypted)).toBe(secrets.password);
    expect(openCredential(row.ssl_ca_encrypted)).toBe(secrets.ca);
    expect(openCredential(row.ssl_cert_encrypted)).toBe(secrets.cert);
    expect(openCredential(row.ssl_key_encrypted)).toBe(secrets.key);

    const read = JSON.stringify((await fetcher.http.get(`/v1/management/connections/${created.body.id}`)).body);
    const listed = JSON.stringify((await fetcher.http.get('/v1/management/connections?limit=100')).body);
    for (const secret of Object.values(secrets)) {
      expect(read).not.toContain(secret);
      expect(listed).not.toContain(secret);
    }
  });

  it('re-encrypts a PATCHed password, and the connection still connects', async () => {
    const { id } = await registerPostgres(fetcher.http, source, { configName: `pg_${randomUUID().slice(0, 8)}`, product: 'reporter' });
    const store = fetcher.app.get(DataSource);
    const [before] = await store.query('SELECT password_encrypted FROM connections WHERE id = ?', [id]);
    expect((await fetcher.http.patch(`/v1/management/connections/${id}`).send({ password: 'rotated-Secret-9' })).status).toBe(200);
    const [after] = await store.query('SELECT password_encrypted FROM connections WHERE id = ?', [id]);
    expect(after.password_encrypted).not.toBe(before.password_encrypted);
    expect(openCredential(after.password_encrypted)).toBe('rotated-Secret-9');
    expect((await fetcher.http.post(`/v1/management/connections/${id}/test`)).status).toBe(200);
  });
});

describe('SSRF guard (docs/security.md)', () => {
  let strict: EmbeddedFetcher;
  let permissive: EmbeddedFetcher;
  beforeAll(async () => {
    [strict, permissive] = await Promise.all([
      startEmbeddedFetcher({ ALLOW_PRIVATE_HOSTS: 'false' }),
      startEmbeddedFetcher({ ALLOW_PRIVATE_HOSTS: 'true' }),
    ]);
  });
  afterAll(async () => Promise.all([strict?.close(), permissive?.close()]));

  const create = (fetcher: EmbeddedFetcher, host: string) =>
    fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send(pgConnectionBody({ host, port: 5432, name: 'x', user: 'u' }, { password: 'p' }));

  it('this machine resolves its own host name to loopback (precondition of the next test)', async () => {
    const addresses = await lookup(hostname(), { all: true });
    expect(addresses.some((entry) => entry.address.startsWith('127.') || entry.address === '::1')).toBe(true);
  });

  it.each(['127.0.0.1', 'localhost', '10.0.0.5', '169.254.169.254', '[::1]', hostname()])(
    'refuses %s on create with 400 FET-0414 when private hosts are not allowed',
    async (host) => {
      const response = await create(strict, host);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0414');
      expect(response.body.message).not.toContain(host);
    },
  );

  it('refuses 169.254.169.254 even when private hosts are allowed, and allows loopback then', async () => {
    expect((await create(permissive, '169.254.169.254')).body.code).toBe('FET-0414');
    expect((await create(permissive, 'metadata.google.internal')).body.code).toBe('FET-0414');
    expect((await create(permissive, '127.0.0.1')).status).toBe(201);
  });

  it('refuses a PATCH to a forbidden host, and test, schema, validate-schema and jobs on a stored forbidden host', async () => {
    const created = await create(strict, 'db.example.invalid');
    expect(created.status).toBe(201);
    const patch = await strict.http.patch(`/v1/management/connections/${created.body.id}`).send({ host: '10.0.0.5' });
    expect(patch.body.code).toBe('FET-0414');

    // A row written before the guard was tightened: every later connect is still checked.
    await strict.app.get(DataSource).query("UPDATE connections SET host = '127.0.0.1' WHERE id = ?", [created.body.id]);
    expect((await strict.http.post(`/v1/management/connections/${created.body.id}/test`)).body.code).toBe('FET-0414');
    expect((await strict.http.get(`/v1/management/connections/${created.body.id}/schema`)).body.code).toBe('FET-0414');
    const validation = await strict.http
      .post('/v1/management/connections/validate-schema')
      .send({ mappedFields: { [created.body.configName]: { accounts: ['id'] } } });
    expect(validation.body.code).toBe('FET-0414');
    const job = await strict.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { [created.body.configName]: { accounts: ['id'] } } }, metadata: { source: 'reporter' } });
    expect(job.status).toBe(400);
    expect(job.body.code).toBe('FET-0414');
  });
});

describe('internal datasources (DATASOURCE_<NAME>_*)', () => {
  let fetcher: EmbeddedFetcher;
  const id = internalDatasourceId('warehouse');

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({
      ALLOW_PRIVATE_HOSTS: 'false',
      DATASOURCE_WAREHOUSE_CONFIG_NAME: 'warehouse',
      DATASOURCE_WAREHOUSE_TYPE: 'POSTGRESQL',
      DATASOURCE_WAREHOUSE_HOST: source.host,
      DATASOURCE_WAREHOUSE_PORT: String(source.port),
      DATASOURCE_WAREHOUSE_DATABASE: source.name,
      DATASOURCE_WAREHOUSE_USER: source.user,
      DATASOURCE_WAREHOUSE_PASSWORD: 'env-secret',
      DATASOURCE_WAREHOUSE_OPTIONS: 'team=data&region=eu',
    });
    for (let i = 0; i < 3; i += 1) {
      const response = await fetcher.http
        .post('/v1/management/connections')
        .set('X-Product-Name', 'reporter')
        .send(pgConnectionBody({ host: 'db.example.com', port: 5432, name: 'x', user: 'u' }, { configName: `ext_${i}`, password: 'p' }));
      expect(response.status).toBe(201);
    }
  });
  afterAll(async () => fetcher?.close());

  it('is listed, counted in total, filtered like the rest, and never pushes a page past its limit', async () => {
    const all = await fetcher.http.get('/v1/management/connections');
    expect(all.body.total).toBe(4);
    const internal = all.body.items.find((item: { configName: string }) => item.configName === 'warehouse');
    expect(internal).toEqual({
      id,
      configName: 'warehouse',
      type: 'POSTGRESQL',
      host: source.host,
      port: source.port,
      databaseName: source.name,
      userName: source.user,
      hasPassword: true,
      hasClientCertificate: false,
      hasClientKey: false,
      metadata: { team: 'data', region: 'eu' },
      internal: true,
      createdAt: '1970-01-01T00:00:00.000Z',
      updatedAt: '1970-01-01T00:00:00.000Z',
    });
    expect(JSON.stringify(all.body)).not.toContain('env-secret');

    const pages = await Promise.all([1, 2].map((page) => fetcher.http.get(`/v1/management/connections?limit=2&page=${page}`)));
    expect(pages.map((page) => page.body.items.length)).toEqual([2, 2]);
    expect(pages[1].body.items.map((item: { configName: string }) => item.configName)).toEqual(['ext_0', 'warehouse']);
    const ascending = await fetcher.http.get('/v1/management/connections?limit=2&sortOrder=asc');
    expect(ascending.body.items.map((item: { configName: string }) => item.configName)).toEqual(['warehouse', 'ext_0']);

    expect((await fetcher.http.get('/v1/management/connections?type=MYSQL')).body.total).toBe(0);
    expect(
      (await fetcher.http.get('/v1/management/connections?metadata.team=data')).body.items.map((item: { id: string }) => item.id),
    ).toEqual([id]);
    expect((await fetcher.http.get('/v1/management/connections').set('X-Product-Name', 'reporter')).body.total).toBe(3);
  });

  it('is readable by its stable id, and can be tested and discovered (no SSRF guard for internal ones)', async () => {
    expect((await fetcher.http.get(`/v1/management/connections/${id}`)).body.configName).toBe('warehouse');
    expect((await fetcher.http.post(`/v1/management/connections/${id}/test`)).status).toBe(200);
    expect((await fetcher.http.get(`/v1/management/connections/${id}/schema`)).body.tables).toEqual([
      { name: 'accounts', fields: ['id', 'email'] },
    ]);
  });

  it('refuses PATCH, DELETE and assign with 403 FET-1023, and its name for a new connection', async () => {
    for (const response of [
      await fetcher.http.patch(`/v1/management/connections/${id}`).send({ port: 1 }),
      await fetcher.http.delete(`/v1/management/connections/${id}`),
      await fetcher.http.post(`/v1/management/connections/${id}/assign`).set('X-Product-Name', 'reporter'),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FET-1023');
      expect(response.body.message).toContain('DATASOURCE_WAREHOUSE_*');
    }
    const clash = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send(pgConnectionBody({ host: 'db.example.com', port: 5432, name: 'x', user: 'u' }, { configName: 'warehouse', password: 'p' }));
    expect(clash.status).toBe(409);
  });

  it('works in a job of any product, without the product check or connection test', async () => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { warehouse: { accounts: ['*'] } } }, metadata: { source: 'some-other-product' } });
    expect(response.status).toBe(202);
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.result?.rowCounts).toEqual({ warehouse: { accounts: 2 } });
  });
});
