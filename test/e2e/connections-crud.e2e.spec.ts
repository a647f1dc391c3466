import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { useTempDatabase } from '../helpers/pg-database.js';

/** Connection management through HTTP (docs/api.md, "Connections"). */
describe('connections API: create, read, list, update, delete, assign', () => {
  let fetcher: EmbeddedFetcher;
  const source = useTempDatabase('e2e_conn');
  let store: DataSource;

  beforeAll(async () => {
    await source().query(`CREATE TABLE accounts (id int PRIMARY KEY, email text);
      CREATE VIEW slow_accounts AS SELECT id, email, pg_sleep(1.5)::text AS waited FROM accounts;
      INSERT INTO accounts VALUES (1, 'a@example.com');`);
    fetcher = await startEmbeddedFetcher();
    store = fetcher.app.get(DataSource);
  });

  afterAll(async () => {
    await fetcher?.close();
  });

  const body = (overrides: Record<string, unknown> = {}) => pgConnectionBody(source(), { password: 's3cret-pass', ...overrides });
  const create = (product: string | undefined, payload: object) => {
    const request = fetcher.http.post('/v1/management/connections');
    if (product !== undefined) request.set('X-Product-Name', product);
    return request.send(payload);
  };

  describe('create', () => {
    it('answers 201 with every field, the product lower-cased, and no secret', async () => {
      const payload = body({
        schema: 'public',
        ssl: { mode: 'disable', ca: '-----BEGIN CERTIFICATE-----x' },
        metadata: { team: 'finance', purpose: 'ledger' },
      });
      const response = await create('Reporter', payload);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        productName: 'reporter',
        configName: payload.configName,
        type: 'POSTGRESQL',
        host: source().host,
        port: source().port,
        databaseName: source().name,
        schema: 'public',
        userName: source().user,
        hasPassword: true,
        hasClientCertificate: false,
        hasClientKey: false,
        ssl: { mode: 'disable' },
        metadata: { team: 'finance', purpose: 'ledger' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(response.body)).not.toMatch(/s3cret-pass|BEGIN CERTIFICATE/);
      expect((await fetcher.http.get(`/v1/management/connections/${response.body.id}`)).body).toEqual(response.body);
    });

    it.each([
      ['missing', undefined, 'X-Product-Name header is required and must not be empty'],
      ['blank', '   ', 'X-Product-Name header is required and must not be empty'],
      ['with special characters', 'rep@rter', 'X-Product-Name can only contain alphanumeric characters, underscores, and hyphens'],
      ['of 101 characters', 'a'.repeat(101), 'X-Product-Name must not exceed 100 characters'],
    ])('refuses an X-Product-Name header %s (FET-0403)', async (_name, header, message) => {
      const response = await create(header, body());
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'FET-0403', title: 'Invalid header', message });
    });

    it('accepts an X-Product-Name of 100 characters', async () => {
      expect((await create('a'.repeat(100), body())).status).toBe(201);
    });

    it('lists every missing required field (FET-0402)', async () => {
      const response = await create('reporter', { configName: 'pg_missing', type: 'POSTGRESQL', port: 5432 });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0402');
      expect(Object.keys(response.body.fields).sort()).toEqual(['databaseName', 'host', 'password', 'userName']);
    });

    it.each([
      ['configName of 2 characters', { configName: 'ab' }, 'configName'],
      ['configName of 101 characters', { configName: 'a'.repeat(101) }, 'configName'],
      ['configName with a dot', { configName: 'pg.main' }, 'configName'],
      ['port 0', { port: 0 }, 'port'],
      ['port 65536', { port: 65536 }, 'port'],
      ['port -1', { port: -1 }, 'port'],
      ['port as a string', { port: '5432' }, 'port'],
      ['an unknown type', { type: 'INVALID' }, 'type'],
      ['a lower-case type', { type: 'postgresql' }, 'type'],
      ['an unknown field', { color: 'blue' }, 'color'],
      ['an empty host', { host: '' }, 'host'],
      ['a host with a path', { host: 'db/x' }, 'host'],
    ])('refuses %s (400, naming the field)', async (_name, overrides, field) => {
      const response = await create('reporter', body(overrides));
      expect(response.status).toBe(400);
      expect(['FET-0001', 'FET-0402']).toContain(response.body.code);
      expect(Object.keys(response.body.fields)).toContain(field);
    });

    it.each([
      ['POSTGRESQL', 'REQUIRE'],
      ['POSTGRESQL', 'true'],
      ['POSTGRESQL', "require'; DROP TABLE x"],
      ['MYSQL', 'require'],
      ['SQL_SERVER', 'verify-full'],
      ['MONGODB', 'skip-verify'],
    ])('refuses SSL mode for %s: %s (FET-0413, naming the allowed values)', async (type, mode) => {
      const response = await create('reporter', body({ type, ssl: { mode } }));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0413');
      expect(response.body.fields['ssl.mode']).toMatch(/^must be one of /);
    });

    it.each([
      ['POSTGRESQL', 'verify-full'],
      ['MYSQL', 'skip-verify'],
      ['SQL_SERVER', 'strict'],
      ['MONGODB', 'insecure'],
    ])('accepts SSL mode for %s: %s', async (type, mode) => {
      expect((await create('reporter', body({ type, ssl: { mode } }))).status).toBe(201);
    });

    it('requires metadata.serviceName for Oracle', async () => {
      const missing = await create('reporter', body({ type: 'ORACLE', port: 1521 }));
      expect(missing.status).toBe(400);
      expect(missing.body.fields).toHaveProperty(['metadata.serviceName']);
      expect((await create('reporter', body({ type: 'ORACLE', port: 1521, metadata: { serviceName: 'XEPDB1' } }))).status).toBe(201);
    });

    it('refuses a configName already in use in the same product (409 FET-1002); another product may use it', async () => {
      const payload = body();
      expect((await create('reporter', payload)).status).toBe(201);
      const again = await create('reporter', payload);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('FET-1002');
      expect((await create('billing', payload)).status).toBe(201);
    });

    it('gives exactly one 201 to concurrent creates of one configName', async () => {
      const payload = body();
      const responses = await Promise.all(Array.from({ length: 10 }, () => create('reporter', payload)));
      expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 409)).toHaveLength(9);
    });
  });

  describe('get', () => {
    it('answers 400 FET-0404 for an invalid id and 404 FET-1001 for an unknown one', async () => {
      for (const id of ['not-a-uuid', '12345']) {
        const response = await fetcher.http.get(`/v1/management/connections/${id}`);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ code: 'FET-0404', message: 'invalid connection id' });
      }
      const unknown = await fetcher.http.get(`/v1/management/connections/${randomUUID()}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('FET-1001');
    });
  });

  describe('list', () => {
    const product = `list-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    const list = (query: string, header: string | undefined = product) => {
      const request = fetcher.http.get(`/v1/management/connections${query}`);
      return header === undefined ? request : request.set('X-Product-Name', header);
    };

    beforeAll(async () => {
      const specs = [
        { type: 'POSTGRESQL', host: 'db-a.example.com', databaseName: 'ledger', metadata: { team: 'finance' } },
        { type: 'POSTGRESQL', host: 'db-a.example.com', databaseName: 'crm', metadata: { team: 'sales' } },
        { type: 'MYSQL', host: 'db-b.example.com', databaseName: 'ledger', metadata: { team: 'finance' } },
        { type: 'MONGODB', host: 'db-b.example.com', databaseName: 'events' },
        { type: 'POSTGRESQL', host: 'db-c.example.com', databaseName: 'ledger' },
      ];
      for (const spec of specs) {
        const response = await create(product, body(spec));
        expect(response.status).toBe(201);
        ids.push(response.body.id);
        await new Promise((done) => setTimeout(done, 5));
      }
      // The oldest was created three months ago: it must still be listed by default.
      await store.query(`UPDATE connections SET created_at = ? WHERE id = ?`, [
        new Date(Date.now() - 92 * 24 * 3600 * 1000).toISOString().replace('T', ' ').replace('Z', ''),
        ids[0],
      ]);
    });

    it('pages 5 connections 2/2/1 with no overlap and the right total, newest first', async () => {
      const pages = await Promise.all([1, 2, 3].map((page) => list(`?limit=2&page=${page}`)));
      expect(pages.map((page) => page.body.items.length)).toEqual([2, 2, 1]);
      expect(pages.map((page) => page.body.total)).toEqual([5, 5, 5]);
      expect(pages[0].body).toMatchObject({ page: 1, limit: 2 });
      const seen = pages.flatMap((page) => page.body.items.map((item: { id: string }) => item.id));
      expect(seen).toEqual([...ids].reverse());
      expect((await list('?limit=2&page=4')).body.items).toEqual([]);
    });

    it('sorts oldest first with sortOrder=asc, and lists the three-month-old connection by default', async () => {
      const response = await list('?sortOrder=asc');
      expect(response.body.items.map((item: { id: string }) => item.id)).toEqual(ids);
    });

    it.each([
      ['?type=MYSQL', [2]],
      ['?host=db-a.example.com', [0, 1]],
      ['?databaseName=ledger', [0, 2, 4]],
      ['?metadata.team=finance', [0, 2]],
      ['?metadata.team=finance&type=POSTGRESQL', [0]],
      ['?host=db-b.example.com&databaseName=events', [3]],
    ])('filters %s', async (query, expected) => {
      const response = await list(`${query}&sortOrder=asc`.replace('&sortOrder', query.includes('?') ? '&sortOrder' : '?sortOrder'));
      expect(response.status).toBe(200);
      expect(response.body.items.map((item: { id: string }) => item.id)).toEqual(expected.map((index) => ids[index]));
      expect(response.body.total).toBe(expected.length);
    });

    it('filters by creation date, inclusive of both days', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const recent = await list(`?startDate=${today}&endDate=${today}`);
      expect(recent.body.total).toBe(4);
      const old = new Date(Date.now() - 92 * 24 * 3600 * 1000).toISOString().slice(0, 10);
      const older = await list(`?startDate=${old}&endDate=${old}`);
      expect(older.body.items.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    });

    it('scopes by product: another product sees none of these, an unknown product an empty page', async () => {
      expect((await list('', 'nobody-has-this')).body).toEqual({ items: [], page: 1, limit: 10, total: 0 });
      const all = await list('?limit=100', undefined);
      expect(all.body.total).toBeGreaterThanOrEqual(5);
    });

    it.each([
      ['?limit=101', 'FET-0406'],
      ['?limit=0', 'FET-0405'],
      ['?page=0', 'FET-0405'],
      ['?page=abc', 'FET-0405'],
      ['?sortOrder=sideways', 'FET-0407'],
      ['?startDate=2026-13-01', 'FET-0408'],
      ['?startDate=01/02/2026', 'FET-0408'],
      ['?startDate=2026-02-01&endDate=2026-01-01', 'FET-0409'],
      ['?type=postgres', 'FET-0405'],
      ['?prodcutName=x', 'FET-0405'],
      ['?metadata.$where=x', 'FET-0405'],
    ])('refuses %s with %s', async (query, code) => {
      const response = await list(query);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe(code);
    });
  });

  describe('unassigned and assign', () => {
    it('lists a connection without product, assigns it once, then refuses a second assignment', async () => {
      const created = await create('reporter', body());
      await store.query('UPDATE connections SET product_name = NULL WHERE id = ?', [created.body.id]);

      const unassigned = await fetcher.http.get('/v1/management/connections/unassigned?limit=100');
      expect(unassigned.status).toBe(200);
      expect(unassigned.body.items.map((item: { id: string }) => item.id)).toContain(created.body.id);
      expect(unassigned.body.items.every((item: { productName?: string }) => item.productName === undefined)).toBe(true);

      const assigned = await fetcher.http.post(`/v1/management/connections/${created.body.id}/assign`).set('X-Product-Name', 'Billing');
      expect(assigned.status).toBe(200);
      expect(assigned.body.productName).toBe('billing');
      const again = await fetcher.http.post(`/v1/management/connections/${created.body.id}/assign`).set('X-Product-Name', 'reporter');
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('FET-1015');
      const after = await fetcher.http.get('/v1/management/connections/unassigned?limit=100');
      expect(after.body.items.map((item: { id: string }) => item.id)).not.toContain(created.body.id);
    });

    it('refuses assign without header (400), for unknown ids (404) and bad ids (400)', async () => {
      const created = await create('reporter', body());
      expect((await fetcher.http.post(`/v1/management/connections/${created.body.id}/assign`)).body.code).toBe('FET-0403');
      expect((await fetcher.http.post(`/v1/management/connections/${randomUUID()}/assign`).set('X-Product-Name', 'x')).status).toBe(404);
      expect((await fetcher.http.post('/v1/management/connections/nope/assign').set('X-Product-Name', 'x')).body.code).toBe('FET-0404');
    });
  });

  describe('update', () => {
    it('changes only the fields sent, keeps the id, and replaces metadata whole', async () => {
      const created = await create('reporter', body({ metadata: { a: 1, b: 2 } }));
      const renamed = `pg_${randomUUID().slice(0, 8)}`;
      const response = await fetcher.http
        .patch(`/v1/management/connections/${created.body.id}`)
        .send({ configName: renamed, port: 6543, metadata: { c: 3 } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...created.body,
        configName: renamed,
        port: 6543,
        // A new port without a new password: the stored one is not sent to another endpoint.
        hasPassword: false,
        metadata: { c: 3 },
        updatedAt: expect.any(String),
        identityChanged: ['port'],
        clearedCredentials: ['password'],
      });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(created.body.updatedAt));
      // What the PATCH did is said in its answer only; the connection itself reads the same.
      const { identityChanged: _changed, clearedCredentials: _cleared, ...stored } = response.body;
      expect((await fetcher.http.get(`/v1/management/connections/${created.body.id}`)).body).toEqual(stored);
    });

    it('clears the schema and SSL settings with null, and merges ssl fields', async () => {
      const created = await create('reporter', body({ schema: 'sales', ssl: { mode: 'require', ca: 'CA' } }));
      const id = created.body.id;
      const merged = await fetcher.http.patch(`/v1/management/connections/${id}`).send({ ssl: { mode: 'verify-full' } });
      expect(merged.body.ssl).toEqual({ mode: 'verify-full' });
      const [{ ssl_ca_encrypted: ca }] = await store.query('SELECT ssl_ca_encrypted FROM connections WHERE id = ?', [id]);
      expect(ca).toEqual(expect.any(String));
      const cleared = await fetcher.http.patch(`/v1/management/connections/${id}`).send({ schema: null, ssl: null });
      expect(cleared.body.schema).toBeUndefined();
      expect(cleared.body.ssl).toBeUndefined();
    });

    it.each([
      ['an empty body', {}, 'FET-0001'],
      ['an empty host', { host: '' }, 'FET-0001'],
      ['port 0', { port: 0 }, 'FET-0001'],
      ['port 65536', { port: 65536 }, 'FET-0001'],
      ['an empty databaseName', { databaseName: '' }, 'FET-0001'],
      ['an unknown field', { productName: 'other' }, 'FET-0001'],
      ['an SSL mode of another engine', { ssl: { mode: 'skip-verify' } }, 'FET-0413'],
      ['a type whose SSL modes exclude the stored one', { type: 'MYSQL' }, 'FET-0413'],
    ])('refuses %s (400)', async (_name, patch, code) => {
      const created = await create('reporter', body({ ssl: { mode: 'require' } }));
      const response = await fetcher.http.patch(`/v1/management/connections/${created.body.id}`).send(patch);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe(code);
    });

    it('answers 404 for an unknown id and 409 for a name in use', async () => {
      expect((await fetcher.http.patch(`/v1/management/connections/${randomUUID()}`).send({ port: 1 })).status).toBe(404);
      const a = await create('reporter', body());
      const b = await create('reporter', body());
      const clash = await fetcher.http.patch(`/v1/management/connections/${b.body.id}`).send({ configName: a.body.configName });
      expect(clash.status).toBe(409);
      expect(clash.body.code).toBe('FET-1002');
    });
  });

  describe('delete', () => {
    it('soft-deletes (204), then answers 404, and frees the name', async () => {
      const payload = body();
      const created = await create('reporter', payload);
      expect((await fetcher.http.delete(`/v1/management/connections/${created.body.id}`)).status).toBe(204);
      expect((await fetcher.http.get(`/v1/management/connections/${created.body.id}`)).status).toBe(404);
      expect((await fetcher.http.delete(`/v1/management/connections/${created.body.id}`)).status).toBe(404);
      expect((await fetcher.http.delete('/v1/management/connections/bad-id')).body.code).toBe('FET-0404');
      const reused = await create('reporter', payload);
      expect(reused.status).toBe(201);
      expect(reused.body.id).not.toBe(created.body.id);
    });
  });

  it('refuses PATCH and DELETE with 409 FET-1021 while a job uses the connection', async () => {
    const created = await create('reporter', body());
    const job = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { [created.body.configName]: { slow_accounts: ['id'] } } }, metadata: { source: 'reporter' } });
    expect(job.status).toBe(202);

    const patch = await fetcher.http.patch(`/v1/management/connections/${created.body.id}`).send({ port: 5433 });
    expect(patch.status).toBe(409);
    expect(patch.body).toEqual({ code: 'FET-1021', title: 'Job In Progress', message: 'cannot update connection with active jobs' });
    const removal = await fetcher.http.delete(`/v1/management/connections/${created.body.id}`);
    expect(removal.status).toBe(409);
    expect(removal.body.message).toBe('cannot delete connection with active jobs');

    expect((await waitForJob(fetcher.http, job.body.jobId)).status).toBe('completed');
    expect((await fetcher.http.patch(`/v1/management/connections/${created.body.id}`).send({ port: source().port })).status).toBe(200);
  });
});
