import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const RUN = randomBytes(3).toString('hex');
const ALPHA = `alpha_${RUN}`;
const BETA = `beta_${RUN}`;
const mark = (value: string, column = 'id', type = 'integer') => ({ column, type, value });
const MARKS = { pg: { orders: mark('41'), 'sales.refunds': mark('2026-03-01T10:00:00.000000Z', 'refunded_at', 'timestamptz') } };
const NOT_FOUND = {
  code: 'FET-1001',
  title: 'Entity Not Found',
  message: 'It was not possible to find the stream entity during the requested flow. Please review the data provided in the request.',
};

/**
 * The stream routes through HTTP with API keys: who may call each (no credential 401, another
 * product's stream 404 by default product and by `?source=` alike, the operator naming the
 * product), PUT's validation naming each field, and the route order that keeps
 * `/v1/fetcher/streams` from being taken for a job id. Jobs of streams: incremental-jobs.e2e.spec.ts.
 */
describe('streams: /v1/fetcher/streams routes', () => {
  let fetcher: EmbeddedFetcher;
  let alpha: ReturnType<typeof withBearer>;
  let beta: ReturnType<typeof withBearer>;
  let admin: ReturnType<typeof withBearer>;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY });
    admin = withBearer(fetcher.http, ADMIN_KEY);
    const issue = async (productName: string) => {
      const response = await admin.post('/v1/management/api-keys', { productName, name: 'streams e2e' });
      expect(response.status).toBe(201);
      return response.body.key as string;
    };
    const [alphaKey, betaKey] = await Promise.all([issue(ALPHA), issue(BETA)]);
    alpha = withBearer(fetcher.http, alphaKey);
    beta = withBearer(fetcher.http, betaKey);
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  it('creates a stream with PUT …/marks for the credential’s only product, and reads it back and in its list', async () => {
    const created = await alpha.put('/v1/fetcher/streams/nightly/marks', { marks: MARKS });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      product: ALPHA,
      name: 'nightly',
      tables: MARKS,
      lastJobId: null,
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
    });
    const read = await alpha.get('/v1/fetcher/streams/nightly');
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    // A name with a slash and a space, URL-encoded, is one path segment.
    expect((await alpha.put('/v1/fetcher/streams/daily%2Fby%20region/marks', { marks: {} })).status).toBe(200);
    const list = await alpha.get('/v1/fetcher/streams?limit=100');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 100, total: 2 });
    expect(list.body.items.map((item: { name: string }) => item.name)).toEqual(['daily/by region', 'nightly']);
    expect((await alpha.get('/v1/fetcher/streams/daily%2Fby%20region')).body.tables).toEqual({});
  });

  it('matches /v1/fetcher/streams before the job routes: not a job id, and jobs still answer by id', async () => {
    const list = await admin.get('/v1/fetcher/streams');
    expect(list.status).toBe(200);
    expect(list.body).toHaveProperty('items');
    expect((await alpha.get('/v1/fetcher/streams/nope')).body).toEqual(NOT_FOUND);
    expect((await alpha.get('/v1/fetcher/00000000-0000-7000-8000-000000000000')).body.message).toMatch(/job entity/);
    expect((await alpha.get('/v1/fetcher/not-a-uuid')).body).toMatchObject({ code: 'FET-0404', message: 'invalid job id' });
    // A stream named like a job route's segment stays a stream.
    expect((await alpha.put('/v1/fetcher/streams/result/marks', { marks: {} })).status).toBe(200);
    expect((await alpha.delete('/v1/fetcher/streams/result')).status).toBe(204);
  });

  it('answers 401 FET-0010 on every stream route without a credential', async () => {
    for (const call of [
      fetcher.http.get('/v1/fetcher/streams'),
      fetcher.http.get('/v1/fetcher/streams/nightly'),
      fetcher.http.put('/v1/fetcher/streams/nightly/marks').send({ marks: {} }),
      fetcher.http.delete('/v1/fetcher/streams/nightly'),
    ]) {
      const response = await call;
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('FET-0010');
    }
    expect((await alpha.get('/v1/fetcher/streams/nightly')).body.tables).toEqual(MARKS);
  });

  it('answers another product’s stream 404 FET-1001 on every route, by default product and by source alike, and lists none of it', async () => {
    const refusals = [await beta.get('/v1/fetcher/streams/nightly'), await beta.delete('/v1/fetcher/streams/nightly')];
    for (const suffix of [`?source=${ALPHA}`, `?source=${ALPHA.toUpperCase()}`]) {
      refusals.push(
        await beta.get(`/v1/fetcher/streams/nightly${suffix}`),
        await beta.put(`/v1/fetcher/streams/nightly/marks${suffix}`, { marks: {} }),
        await beta.delete(`/v1/fetcher/streams/nightly${suffix}`),
      );
    }
    for (const response of refusals) expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: NOT_FOUND });
    expect((await beta.get('/v1/fetcher/streams')).body).toEqual({ items: [], page: 1, limit: 10, total: 0 });
    expect((await beta.get(`/v1/fetcher/streams?source=${ALPHA}`)).body.total).toBe(0);
    // Names live inside a product: beta's own stream of that name is another stream.
    const own = await beta.put('/v1/fetcher/streams/nightly/marks', { marks: {} });
    expect(own.body).toMatchObject({ product: BETA, name: 'nightly', tables: {} });
    expect((await beta.delete('/v1/fetcher/streams/nightly')).status).toBe(204);
    // Nothing of alpha's changed: the PUT and DELETE above were answered as for a stream nobody created.
    expect((await alpha.get('/v1/fetcher/streams/nightly')).body.tables).toEqual(MARKS);
  });

  it('lets the operator see every product’s streams and act on one it names with source (required for it)', async () => {
    const all = await admin.get(`/v1/fetcher/streams?limit=100&source=${ALPHA}`);
    expect(all.body.total).toBe(2);
    const missing = await admin.get('/v1/fetcher/streams/nightly');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'FET-0405', fields: { source: expect.stringMatching(/^source is required/) } });
    expect((await admin.get(`/v1/fetcher/streams/nightly?source=${ALPHA}`)).body.tables).toEqual(MARKS);
    const moved = await admin.put(`/v1/fetcher/streams/nightly/marks?source=${ALPHA}`, { marks: { pg: { orders: mark('7') } } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ product: ALPHA, tables: { pg: { orders: mark('7') } }, lastJobId: null });
    expect((await admin.delete(`/v1/fetcher/streams/nightly?source=${ALPHA}`)).status).toBe(204);
    expect((await alpha.get('/v1/fetcher/streams/nightly')).status).toBe(404);
    expect((await alpha.delete('/v1/fetcher/streams/nightly')).body).toEqual(NOT_FOUND);
    expect((await admin.get('/v1/fetcher/streams?limit=100')).body.items.map((item: { product: string }) => item.product)).toContain(ALPHA);
  });

  it('refuses marks that are not marks with 400 FET-0401 naming each field, and a body without them with FET-0402', async () => {
    const path = '/v1/fetcher/streams/checked/marks';
    const bad = await alpha.put(path, {
      marks: {
        pg: {
          orders: { column: 'id', type: 'float', value: '1' },
          customers: { column: '', type: 'integer', value: '1' },
          refunds: { column: 'id', type: 'integer', value: 1 },
          items: { column: 'id', type: 'integer', value: '1', extra: true },
          lines: { column: 'id', type: 'integer', value: 'twelve' },
        },
        other: 'nope',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'FET-0401', message: '6 problems in marks' });
    expect(Object.keys(bad.body.fields).sort()).toEqual([
      'marks.other',
      'marks.pg.customers',
      'marks.pg.items',
      'marks.pg.lines',
      'marks.pg.orders',
      'marks.pg.refunds',
    ]);
    expect(bad.body.fields['marks.pg.orders']).toMatch(/^a mark's type is one of integer, decimal/);
    // A value must have its kind's form: the next job would otherwise bind it against the column.
    expect(bad.body.fields['marks.pg.lines']).toMatch(/^'twelve' is not /);
    const notAnObject = await alpha.put(path, { marks: [] });
    expect(notAnObject.body).toMatchObject({ code: 'FET-0401', fields: { marks: 'marks must map datasources to tables and their marks' } });
    const missing = await alpha.put(path, {});
    expect(missing.body).toMatchObject({ code: 'FET-0402', fields: { marks: 'marks is a required field' } });
    const unknown = await alpha.put(path, { marks: {}, extra: 1 });
    expect(unknown.body).toMatchObject({ code: 'FET-0001', fields: { extra: 'extra is not a known field' } });
    expect((await alpha.get('/v1/fetcher/streams/checked')).status).toBe(404);
  });

  it('refuses a name no job could have, unknown query parameters and pages over the limit', async () => {
    const long = 'x'.repeat(129);
    for (const response of [
      await alpha.get(`/v1/fetcher/streams/${long}`),
      await alpha.put(`/v1/fetcher/streams/tab%09name/marks`, { marks: {} }),
      await alpha.delete('/v1/fetcher/streams/%20padded'),
    ]) {
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'FET-0404', message: expect.stringMatching(/^invalid stream name: /) });
    }
    expect((await alpha.get('/v1/fetcher/streams?limit=101')).body.code).toBe('FET-0406');
    expect((await alpha.get('/v1/fetcher/streams?sourse=x')).body).toMatchObject({
      code: 'FET-0405',
      fields: { sourse: expect.any(String) },
    });
    expect((await alpha.get('/v1/fetcher/streams/nightly?page=2')).body).toMatchObject({
      code: 'FET-0405',
      fields: { page: expect.any(String) },
    });
    expect((await alpha.get('/v1/fetcher/streams?source=')).body).toMatchObject({
      code: 'FET-0405',
      fields: { source: expect.any(String) },
    });
  });
});
