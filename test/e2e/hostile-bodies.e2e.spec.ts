import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/auth-routes.js';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/**
 * Bodies, query strings, path ids and headers that once answered 500, or silently lost part of
 * the request; each now has a named answer (docs/request-limits.md).
 */
let source: TempDatabase;
beforeAll(async () => {
  source = await createTempDatabase('e2e_hostile');
  await source.query(`
    CREATE TABLE tiny (id int PRIMARY KEY, label text);
    INSERT INTO tiny VALUES (1, 'a'), (2, 'b');
    CREATE TABLE "constructor" (id int PRIMARY KEY, "prototype" int);
    INSERT INTO "constructor" VALUES (1, 10), (2, 20), (3, 20);
  `);
});
afterAll(async () => source?.drop());

/** `{"a":{"a":…{}…}}`: `levels` objects, as text (the client must not choke on it either). */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('hostile bodies, query strings, ids and headers (AUTH_MODE=none)', () => {
  let fetcher: EmbeddedFetcher;
  let connectionId: string;
  const product = 'reporter';
  const postJson = (path: string, text: string) =>
    fetcher.http.post(path).set('Content-Type', 'application/json').set('X-Product-Name', product).send(text);
  const submitText = (text: string) => postJson('/v1/fetcher', text);
  const submit = (dataRequest: unknown, metadata: unknown = { source: product, correlationId: randomUUID() }) =>
    fetcher.http.post('/v1/fetcher').send({ metadata, dataRequest });
  const expectEnvelope = (body: Record<string, unknown>, code: string) => {
    expect(body).toMatchObject({ code, title: expect.any(String), message: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(/\n\s*at |node_modules|\.ts:\d+/);
  };

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher();
    connectionId = (await registerPostgres(fetcher.http, source, { configName: 'pg_main', product })).id;
  });
  afterAll(async () => fetcher?.close());

  it('answers {"dataRequest": []} and {"dataRequest": [[]]} with 400 naming dataRequest (was 500)', async () => {
    for (const dataRequest of [[], [[]]]) {
      const response = await submit(dataRequest);
      expect(response.status).toBe(400);
      expectEnvelope(response.body, 'FET-0001');
      expect(response.body.fields).toEqual({ dataRequest: 'dataRequest must be an object' });
    }
  });

  it('answers metadata nested 2,000 deep with 400 FET-0001 naming the path (was a stack overflow, 500)', async () => {
    for (const nested of [nestedObjects(2_000), nestedArrays(2_000), nestedObjects(100_000)]) {
      const response = await submitText(`{"metadata":${nested},"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"]}}}}`);
      expect(response.status).toBe(400);
      expectEnvelope(response.body, 'FET-0001');
      expect(response.body.message).toMatch(/^metadata\.(a|0)\..* nests deeper than 32 levels$/);
    }
  });

  it('accepts a body nested exactly 32 levels and refuses 33', async () => {
    // The body is level 1, metadata level 2: 30 more objects inside it reach level 32.
    const body = (levels: number) =>
      `{"metadata":{"source":"${product}","n":${nestedObjects(levels)}},"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"]}}}}`;
    const accepted = await submitText(body(30));
    expect(accepted.status).toBe(202);
    await waitForJob(fetcher.http, accepted.body.jobId);
    const refused = await submitText(body(31));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('nests deeper than 32 levels');
  });

  it('refuses more than 1,000 members in one object and 50,000 in all, naming where', async () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',');
    const wide = await submitText(
      `{"metadata":{"source":"${product}",${members(1_000)}},"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"]}}}}`,
    );
    expect(wide.status).toBe(400);
    expect(wide.body.fields).toEqual({ metadata: 'metadata has 1001 members; at most 1000 are allowed in one object' });
    const objects = Array.from({ length: 51 }, (_, i) => `"o${i}":{${members(999)}}`).join(',');
    const many = await submitText(`{"metadata":{${objects}}}`);
    expect(many.status).toBe(400);
    expect(many.body.fields).toEqual({ body: 'the request body has more than 50000 object members in all' });
  });

  it('keeps a table named "constructor" with a column "prototype", filter included (was silently dropped)', async () => {
    const response = await submit({
      mappedFields: { pg_main: { constructor: ['id', 'prototype'] } },
      filters: { pg_main: { constructor: { prototype: { eq: [20] } } } },
    });
    expect(response.status).toBe(202);
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.result?.rowCounts).toEqual({ pg_main: { constructor: 2 } });
    expect(job.mappedFields).toEqual({ pg_main: { constructor: ['id', 'prototype'] } });
  });

  it('keeps constructor and prototype members of metadata as sent', async () => {
    const metadata = { source: product, constructor: 'c', prototype: { toString: 1 }, correlationId: randomUUID() };
    const response = await submit({ mappedFields: { pg_main: { tiny: ['id'] } } }, metadata);
    expect(response.status).toBe(202);
    expect((await waitForJob(fetcher.http, response.body.jobId)).metadata).toEqual(metadata);
  });

  it('refuses a "__proto__" table key with 400 naming it (was silently dropped)', async () => {
    const response = await submitText(
      `{"metadata":{"source":"${product}"},"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"],"__proto__":["id"]}}}}`,
    );
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'FET-0001');
    expect(Object.keys(response.body.fields)).toEqual(['dataRequest.mappedFields.pg_main.__proto__']);
    const qualified = await submit({ mappedFields: { pg_main: { 'public.__proto__': ['id'] } } });
    expect(qualified.status).toBe(400);
    expect(qualified.body.code).toBe('FET-0401');
    expect(qualified.body.fields).toEqual({
      'dataRequest.mappedFields.pg_main.public.__proto__': "'public.__proto__' cannot be used as a name: '__proto__' is refused",
    });
  });

  it('refuses a filter on table "toString", which is not in mappedFields (the in-check found Object.prototype.toString)', async () => {
    const response = await submit({ mappedFields: { pg_main: { tiny: ['id'] } }, filters: { pg_main: { toString: { id: { eq: [1] } } } } });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'FET-0401');
    expect(response.body.details).toEqual([expect.objectContaining({ type: 'invalid_filter', datasource: 'pg_main', table: 'toString' })]);
  });

  it('caps every operator at 10,000 values at the Manager: 10,000 pass, 10,001 and 65,536 are a 400 FET-1061 naming the field', async () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);
    const accepted = await submit({
      mappedFields: { pg_main: { tiny: ['id'] } },
      filters: { pg_main: { tiny: { id: { in: values(10_000) } } } },
    });
    expect(accepted.status).toBe(202);
    await waitForJob(fetcher.http, accepted.body.jobId);
    for (const [operator, n] of [
      ['in', 10_001],
      ['nin', 65_536],
    ] as const) {
      const refused = await submit({
        mappedFields: { pg_main: { tiny: ['id'] } },
        filters: { pg_main: { tiny: { id: { [operator]: values(n) } } } },
      });
      expect(refused.status).toBe(400);
      expectEnvelope(refused.body, 'FET-1061');
      expect(refused.body.fields).toEqual({
        [`dataRequest.filters.pg_main.tiny.id.${operator}`]: `operator '${operator}' on 'pg_main.tiny.id' takes at most 10000 values, got ${n}`,
      });
      expect(refused.body.details).toEqual([
        expect.objectContaining({ type: 'limit_exceeded', datasource: 'pg_main', table: 'tiny', field: 'id', operator }),
      ]);
    }
  });

  it.each([
    ['the job body', '/v1/fetcher', '[]', 'body'],
    ['mappedFields', '/v1/fetcher', `{"metadata":{"source":"${product}"},"dataRequest":{"mappedFields":[]}}`, 'dataRequest.mappedFields'],
    [
      'filters',
      '/v1/fetcher',
      `{"metadata":{"source":"${product}"},"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"]}},"filters":"x"}}`,
      'dataRequest.filters',
    ],
    [
      'limits',
      '/v1/fetcher',
      `{"metadata":{"source":"${product}"},"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"]}},"limits":[[]]}}`,
      'dataRequest.limits',
    ],
    ['metadata', '/v1/fetcher', '{"metadata":[],"dataRequest":{"mappedFields":{"pg_main":{"tiny":["id"]}}}}', 'metadata'],
    ['the connection body', '/v1/management/connections', '[[]]', 'body'],
    [
      'ssl',
      '/v1/management/connections',
      '{"configName":"pg_ssl","type":"POSTGRESQL","host":"h","port":1,"databaseName":"d","userName":"u","password":"p","ssl":[]}',
      'ssl',
    ],
    ['the validate-schema body', '/v1/management/connections/validate-schema', '[]', 'body'],
    ['validate-schema mappedFields', '/v1/management/connections/validate-schema', '{"mappedFields":[]}', 'mappedFields'],
  ])('answers an array or a string where %s must be an object with 400 naming it', async (_what, path, text, field) => {
    const response = await postJson(path, text);
    expect(response.status).toBe(400);
    expect(response.body.code).toMatch(/^FET-04\d\d$|^FET-0001$/);
    expect(Object.keys(response.body.fields)).toEqual([field]);
  });

  it('answers a PATCH of ssl with an array with 400 naming ssl (was accepted)', async () => {
    const response = await fetcher.http.patch(`/v1/management/connections/${connectionId}`).send({ ssl: [[]] });
    expect(response.status).toBe(400);
    expect(response.body.fields).toEqual({ ssl: 'ssl must be an object' });
  });

  it.each([
    ['?page[]=1', 'FET-0405', 'page[]'],
    ['?limit=abc&limit=2', 'FET-0405', 'limit'],
    ['?page=abc', 'FET-0405', 'page'],
    ['?page=99999999999999999999', 'FET-0405', 'page'],
    ['?limit=99999999999999999999', 'FET-0406', 'limit'],
    ['?metadata.__proto__=x', 'FET-0405', 'metadata.__proto__'],
    ['?__proto__=x', 'FET-0405', '__proto__'],
  ])(
    'answers the query %s with 400 %s naming the parameter (a huge page was a 500, a __proto__ filter was dropped)',
    async (query, code, name) => {
      const response = await fetcher.http.get(`/v1/management/connections${query}`);
      expect(response.status).toBe(400);
      expectEnvelope(response.body, code);
      expect(Object.keys(response.body.fields)).toEqual([name]);
    },
  );

  it('answers bad path ids with FET-0404, and an id too long for the request line with a 431 envelope', async () => {
    for (const id of ['not-a-uuid', '%ZZ', `${randomUUID()}x`, '..%2F..%2Fetc']) {
      const response = await fetcher.http.get(`/v1/management/connections/${id}`);
      expect(response.status, id).toBe(400);
      expectEnvelope(response.body, 'FET-0404');
    }
    const huge = await fetcher.http.get(`/v1/fetcher/${'x'.repeat(20_000)}`);
    expect(huge.status).toBe(431);
    expect(huge.headers['content-type']).toMatch(/^application\/json/);
    expectEnvelope(huge.body, 'FET-0403');
  });

  it('answers a repeated, overlong or non-ASCII X-Product-Name with 400 FET-0403', async () => {
    const body = pgConnectionBody(
      { host: 'h', port: 1, name: 'd', user: 'u' },
      { configName: `pg_${randomBytes(3).toString('hex')}`, password: 'p' },
    );
    for (const header of [['reporter', 'other'], 'r'.repeat(101), 'r'.repeat(9_000), 'repörter', 'reporter, other']) {
      const response = await fetcher.http
        .post('/v1/management/connections')
        .set('X-Product-Name', header as string)
        .send(body);
      expect(response.status, String(header).slice(0, 20)).toBe(400);
      expectEnvelope(response.body, 'FET-0403');
    }
  });

  it('is healthy after all of it, and the source rows are untouched', async () => {
    expect((await fetcher.http.get('/health')).status).toBe(200);
    expect((await source.query('SELECT count(*)::int AS n FROM "constructor"')).rows[0]).toEqual({ n: 3 });
  });
});

describe('hostile Authorization headers (AUTH_MODE=apikey)', () => {
  let fetcher: EmbeddedFetcher;
  const admin = `admin-${randomBytes(24).toString('base64url')}`;
  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: admin });
  });
  afterAll(async () => fetcher?.close());

  it.each([
    ['garbage', 'garbage'],
    ['an empty bearer', 'Bearer '],
    ['two tokens', 'Bearer a b'],
    ['Basic credentials', 'Basic dXNlcjpwYXNz'],
    ['an unknown key', 'Bearer fet_unknown'],
    ['a 15,000-character key', `Bearer ${'k'.repeat(15_000)}`],
    ['Latin-1 bytes', 'Bearer cl\u00e9'],
  ])('answers %s with 401 FET-0010', async (_name, authorization) => {
    const response = await fetcher.http.get('/v1/management/connections').set('Authorization', authorization);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('FET-0010');
    expect(JSON.stringify(response.body)).not.toContain(admin);
  });

  it('answers a key too long for the 16 KiB header limit with a 431 envelope', async () => {
    const response = await fetcher.http.get('/v1/management/connections').set('Authorization', `Bearer ${'k'.repeat(16_385)}`);
    expect(response.status).toBe(431);
    expect(response.body.code).toBe('FET-0403');
  });

  it('still serves the operator', async () => {
    expect((await fetcher.http.get('/v1/management/connections').set(bearer(admin))).status).toBe(200);
  });
});
