import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FET_CATALOGUE, FetCode } from '../../src/engine/errors/fet-code.js';
import { EXAMPLE_ID } from '../../src/common/http/api-error-cases.js';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, waitForJob, type EmbeddedFetcher, type JobView } from '../helpers/fetcher-app.js';
import { TEST_PG, useTempDatabase } from '../helpers/pg-database.js';

interface Example {
  summary?: string;
  value: Record<string, any>;
}
interface Operation {
  tags?: string[];
  summary?: string;
  security?: object[];
  parameters?: Array<{ name: string; in: string; example?: string; schema?: { example?: string } }>;
  requestBody?: { content: Record<string, { examples?: Record<string, Example> }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema?: any; example?: any; examples?: Record<string, Example> }> }
  >;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, any>; securitySchemes: object };
}

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document, with its path and method. */
function operations(document: OpenApiDocument): Array<{ path: string; method: (typeof METHODS)[number]; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, byMethod]) =>
    METHODS.filter((method) => byMethod[method]).map((method) => ({ path, method, operation: byMethod[method] })),
  );
}

const errorExamples = (operation: Operation, status: number): Record<string, Example> =>
  operation.responses[String(status)]?.content?.['application/json']?.examples ?? {};

/** The route with `not-a-uuid` for its id, as product `reporter`, with an empty JSON body where it takes one. */
function callWithInvalidId(fetcher: EmbeddedFetcher, method: (typeof METHODS)[number], path: string, credential?: string) {
  let request = fetcher.http[method](path.replace('{id}', 'not-a-uuid')).set('X-Product-Name', 'reporter');
  if (credential) request = request.set(bearer(credential));
  return method === 'post' || method === 'put' || method === 'patch' ? request.send({}) : request;
}

/** The first named request-body example: the one Swagger UI pre-fills. */
function prefilledBody(operation: Operation): Record<string, any> {
  const examples = Object.values(operation.requestBody?.content['application/json']?.examples ?? {});
  expect(examples.length).toBeGreaterThan(0);
  return examples[0].value;
}

/**
 * The API document and Swagger UI, served by @nestjs/swagger loaded on the first request (the
 * decorators recorded at boot are applied then). Booted with API keys, so the document has every
 * route, key management included; it is written beside the suite's logs for the after-suite check
 * that compares documented and observed statuses (scripts/after-suite/documented-statuses.mjs).
 */
describe('API docs loaded on first request', () => {
  let fetcher: EmbeddedFetcher;
  let document: OpenApiDocument;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY });
    const response = await fetcher.http.get('/swagger-json');
    expect(response.status).toBe(200);
    document = response.body as OpenApiDocument;
    const logDir = process.env.FETCHER_TEST_LOG_DIR;
    if (logDir) writeFileSync(join(dirname(logDir), 'openapi.json'), JSON.stringify(document, null, 2));
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  it('serves the OpenAPI document with every route, its answers and the DTO schemas the decorators describe', async () => {
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/fetcher', '/v1/fetcher/{id}', '/v1/fetcher/{id}/result', '/v1/fetcher/{id}/cancel']),
    );
    expect(Object.keys(document.paths)).toContain('/v1/management/api-keys/{id}');
    expect(Object.keys(document.paths)).not.toContain('/metrics');
    // Method, class and property decorators all took effect: tags, responses with examples, schemas.
    const cancel = document.paths['/v1/fetcher/{id}/cancel'].post;
    expect(cancel.tags).toEqual(['jobs']);
    expect(cancel.summary).toBe('Cancel a pending or processing job');
    expect(Object.keys(cancel.responses).sort()).toEqual(['200', '400', '401', '404', '409', '429', '500', '503']);
    expect(errorExamples(cancel, 409)['FET-1110'].value.code).toBe('FET-1110');
    expect(cancel.security).toEqual([{ bearer: [] }]);
    expect(document.components.schemas.JobResponseDto.properties.progress).toBeDefined();
    expect(document.components.schemas.JobProgressDto.properties.tables.example).toBeDefined();
    expect(document.components.schemas.ErrorEnvelopeDto.required).toEqual(expect.arrayContaining(['code', 'title', 'message']));
    expect(Object.keys(document.components.securitySchemes)).toEqual(['bearer']);
    // Built once: a second request answers the same document.
    expect((await fetcher.http.get('/swagger-json')).body).toEqual(document);
  });

  it('describes the maps of streams with additionalProperties, so that a generated client can send and read them', () => {
    const schemas = document.components.schemas;
    const mapOf = (ref: string) => ({ type: 'object', additionalProperties: { type: 'object', additionalProperties: { $ref: ref } } });
    const mark = '#/components/schemas/StreamMarkDto';
    expect(schemas.PutMarksDto.properties.marks).toMatchObject(mapOf(mark));
    expect(schemas.StreamDto.properties.tables).toMatchObject(mapOf(mark));
    expect(schemas.JobIncrementalDto.properties.tables).toMatchObject(mapOf('#/components/schemas/TableRangeDto'));
    expect(schemas.TableRangeDto.properties.rows).toMatchObject({ nullable: true });
    expect(schemas.IncrementalDto.properties.cursors).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
    });
    expect(schemas.IncrementalDto.properties.initial.additionalProperties.additionalProperties.oneOf).toHaveLength(2);
    expect(schemas.DataRequestDto.properties.incremental.allOf ?? [schemas.DataRequestDto.properties.incremental]).toEqual([
      expect.objectContaining({ $ref: '#/components/schemas/IncrementalDto' }),
    ]);
    expect(schemas.JobResponseDto.properties.incremental).toBeDefined();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/fetcher/streams', '/v1/fetcher/streams/{name}', '/v1/fetcher/streams/{name}/marks']),
    );
    expect(Object.keys(document.paths['/v1/fetcher/streams/{name}/marks'].put.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '404',
      '409',
      '413',
      '429',
      '500',
      '503',
    ]);
  });

  it('shows for every error answer an example of each code it gives, with the status and title of the catalogue', () => {
    for (const { path, method, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || path === '/readyz') continue;
        const where = `${method} ${path} ${status}`;
        const content = response.content?.['application/json'];
        expect(content?.schema?.$ref, where).toBe('#/components/schemas/ErrorEnvelopeDto');
        const examples = Object.values(content?.examples ?? {});
        expect(examples.length, where).toBeGreaterThan(0);
        for (const { value } of examples) {
          const entry = FET_CATALOGUE[value.code as FetCode];
          expect(entry, `${where}: ${value.code}`).toBeDefined();
          expect(entry.status, `${where}: ${value.code}`).toBe(Number(status));
          expect(value.title, `${where}: ${value.code}`).toBe(entry.title);
          expect(value.message.length, `${where}: ${value.code}`).toBeGreaterThan(0);
          expect(response.description, where).toContain(value.code);
        }
      }
    }
  });

  it('documents the guard’s answers on every protected route, and 400 FET-0404 and 404 on every {id} route', () => {
    const v1 = operations(document).filter(({ path }) => path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThanOrEqual(19);
    for (const { path, method, operation } of v1) {
      const where = `${method} ${path}`;
      expect(operation.security, where).toEqual([{ bearer: [] }]);
      expect(Object.keys(errorExamples(operation, 401)), where).toEqual(['FET-0010 no credential', 'FET-0010 invalid credential']);
      expect(errorExamples(operation, 429)['FET-1070 failed authentications'], where).toBeDefined();
      expect(errorExamples(operation, 503)['FET-0003 store'], where).toBeDefined();
      expect(errorExamples(operation, 500)['FET-0002 unexpected'], where).toBeDefined();
      if (path.includes('{id}')) {
        expect(errorExamples(operation, 400)['FET-0404'], where).toBeDefined();
        expect(errorExamples(operation, 404)['FET-1001'], where).toBeDefined();
      }
    }
    for (const path of ['/v1/management/connections/unassigned', '/v1/management/api-keys']) {
      expect(errorExamples(document.paths[path].get, 403)['FET-0011 operators only']).toBeDefined();
    }
    // A principal route answers 403 only where a product is named (X-Product-Name, metadata.source) or the datasource is internal.
    expect(document.paths['/v1/fetcher/{id}'].get.responses['403']).toBeUndefined();
    expect(Object.keys(errorExamples(document.paths['/v1/management/connections/{id}'].patch, 403))).toEqual(['FET-1023']);
  });

  it('answers exactly the documented example where the answer does not depend on stored data', async () => {
    const issued = await fetcher.http
      .post('/v1/management/api-keys')
      .set(bearer(ADMIN_KEY))
      .send({ productName: 'reporter', name: 'docs' });
    expect(issued.status).toBe(201);
    const unknownKey = `fet_${randomBytes(32).toString('base64url').slice(0, 43)}`;
    const app = fetcher;
    for (const { path, method, operation } of operations(document).filter((entry) => entry.path.startsWith('/v1/'))) {
      const where = `${method} ${path}`;
      const anonymous = await callWithInvalidId(app, method, path);
      expect(anonymous.status, where).toBe(401);
      expect(anonymous.body, where).toEqual(errorExamples(operation, 401)['FET-0010 no credential'].value);
      const unknown = await callWithInvalidId(app, method, path, unknownKey);
      expect(unknown.body, where).toEqual(errorExamples(operation, 401)['FET-0010 invalid credential'].value);
      const operatorsOnly = errorExamples(operation, 403)['FET-0011 operators only'];
      if (operatorsOnly)
        expect((await callWithInvalidId(app, method, path, issued.body.key as string)).body, where).toEqual(operatorsOnly.value);
      if (path.includes('{id}')) {
        const invalidId = await callWithInvalidId(app, method, path, ADMIN_KEY);
        expect(invalidId.status, where).toBe(400);
        expect(invalidId.body, where).toEqual(errorExamples(operation, 400)['FET-0404'].value);
      }
      const overLimit = errorExamples(operation, 400)['FET-0406'];
      if (overLimit) {
        // A list: its query refusals are the documented ones.
        expect((await app.http.get(`${path}?limit=101`).set(bearer(ADMIN_KEY))).body, where).toEqual(overLimit.value);
        const unknownParameter = (await app.http.get(`${path}?sourse=x`).set(bearer(ADMIN_KEY))).body;
        expect(unknownParameter, where).toEqual(errorExamples(operation, 400)['FET-0405 unknown parameter'].value);
      }
    }
  });

  it('shows what a new job and a duplicate really answer', () => {
    const submit = document.paths['/v1/fetcher'].post;
    const example = (status: string) => submit.responses[status].content?.['application/json']?.example;
    expect(example('202')).toMatchObject({ status: 'pending', message: 'Job created and queued for processing' });
    expect(example('200')).toMatchObject({ message: 'Duplicate request detected - returning existing job' });
    expect(submit.responses['200'].description).toMatch(/^Duplicate/);
    expect(Object.keys(errorExamples(submit, 503))).toEqual(['FET-0003 store', 'FET-0003 JWKS', 'FET-0003 queue']);
  });

  it('documents /health, /readyz and /version with the schemas of what they answer, with and without operator details', async () => {
    const schemaOf = (path: string, status: string) => {
      const ref: string = document.paths[path].get.responses[status].content?.['application/json']?.schema?.$ref;
      return document.components.schemas[ref.split('/').pop() as string];
    };
    const health = await fetcher.http.get('/health');
    expect(Object.keys(health.body)).toEqual(Object.keys(schemaOf('/health', '200').properties));
    const version = await fetcher.http.get('/version');
    expect(Object.keys(version.body).sort()).toEqual(Object.keys(schemaOf('/version', '200').properties).sort());
    const readyz = document.paths['/readyz'].get;
    expect(schemaOf('/readyz', '503')).toEqual(schemaOf('/readyz', '200'));
    const examples = readyz.responses['200'].content?.['application/json']?.examples ?? {};
    const anonymous = await fetcher.http.get('/readyz');
    expect(anonymous.status).toBe(200);
    expect(Object.keys(anonymous.body.checks.database)).toEqual(Object.keys(examples.anonymous.value.checks.database));
    const operator = await fetcher.http.get('/readyz').set(bearer(ADMIN_KEY));
    expect(Object.keys(operator.body.checks.database).sort()).toEqual(Object.keys(examples.operator.value.checks.database).sort());
    expect(Object.keys(readyz.responses['503'].content?.['application/json']?.examples ?? {})).toEqual([
      'anonymous',
      'operator',
      'draining',
    ]);
  });

  it('serves Swagger UI and its assets', async () => {
    const page = await fetcher.http.get('/swagger');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
    const init = await fetcher.http.get('/swagger/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/v1/fetcher');
    const bundle = await fetcher.http.get('/swagger/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });

  it('leaves every other path to the application', async () => {
    expect((await fetcher.http.get('/swaggerx')).body).toMatchObject({ code: 'FET-1001' });
    expect((await fetcher.http.get('/health')).status).toBe(200);
  });
});

/** The walkthrough's tables: docker/fixtures/postgres/init.sql after it connects to its database. */
function walkthroughFixture(): string {
  const sql = readFileSync(new URL('../../docker/fixtures/postgres/init.sql', import.meta.url), 'utf8');
  return sql.slice(sql.indexOf('\n', sql.indexOf('\\connect')) + 1);
}

/**
 * What Swagger UI pre-fills is the README walkthrough, and it works as it is: its connection
 * registers (pointed at a database of this run holding the walkthrough's tables), and each job
 * example of the document runs to completion. AUTH_MODE=none, as `npm start` runs.
 */
describe('the pre-filled request bodies, against the README walkthrough', () => {
  const source = useTempDatabase('e2e_walkthrough');
  let fetcher: EmbeddedFetcher;
  let document: OpenApiDocument;
  let connectionId: string;
  let walkthroughJob: JobView;

  beforeAll(async () => {
    await source().query(walkthroughFixture());
    fetcher = await startEmbeddedFetcher();
    document = (await fetcher.http.get('/swagger-json')).body as OpenApiDocument;
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  it('registers the walkthrough’s connection from the pre-filled body and header', async () => {
    const create = document.paths['/v1/management/connections'].post;
    const body = prefilledBody(create);
    expect(body).toEqual({
      configName: 'pg_source',
      type: 'POSTGRESQL',
      host: '127.0.0.1',
      port: 5432,
      databaseName: 'source',
      userName: 'postgres',
      password: 'postgres',
    });
    // Swagger UI pre-fills a parameter with its example, or its schema's.
    const header = create.parameters?.find((parameter) => parameter.name === 'X-Product-Name');
    const product = header?.example ?? header?.schema?.example;
    expect(product).toBe('reporter');
    // Only the database is this run's own (and the server, should TEST_PG_* point elsewhere).
    const ours = { host: TEST_PG.host, port: TEST_PG.port, userName: TEST_PG.user, databaseName: source().name };
    const created = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', product as string)
      .send({ ...body, ...ours, ...(TEST_PG.password ? { password: TEST_PG.password } : {}) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const documented = create.responses['201'].content?.['application/json']?.example;
    expect(Object.keys(created.body).sort()).toEqual(Object.keys(documented).sort());
    expect(created.body).toMatchObject({ productName: 'reporter', configName: 'pg_source', hasPassword: true });
    connectionId = created.body.id as string;
    expect((await fetcher.http.post(`/v1/management/connections/${created.body.id}/test`)).status).toBe(200);
  });

  it('validates every other connection example: 201, or an answer the document lists for it', async () => {
    const create = document.paths['/v1/management/connections'].post;
    const [, ...others] = Object.values(create.requestBody?.content['application/json']?.examples ?? {});
    expect(others.length).toBeGreaterThan(0);
    for (const { value } of others) {
      const response = await fetcher.http.post('/v1/management/connections').set('X-Product-Name', 'reporter').send(value);
      if (response.status === 201) continue;
      const codes = Object.values(errorExamples(create, response.status)).map((example) => example.value.code);
      expect(codes, JSON.stringify(response.body)).toContain(response.body.code);
      // Never refused for its shape: the example is a valid body.
      expect([FetCode.BadRequest, FetCode.MissingFields, FetCode.InvalidSslMode]).not.toContain(response.body.code);
    }
  });

  it('runs every pre-filled job body to completion, and the walkthrough’s again is the documented duplicate', async () => {
    const submit = document.paths['/v1/fetcher'].post;
    const examples = submit.requestBody?.content['application/json']?.examples ?? {};
    const expected: Record<string, Record<string, Record<string, number>>> = {
      walkthrough: { pg_source: { accounts: 3, 'accounting.invoices': 2 } },
      filtered: { pg_source: { accounts: 2 } },
      // A stream's first job: every invoice, from the start.
      incremental: { pg_source: { 'accounting.invoices': 2 } },
    };
    expect(Object.keys(examples)).toEqual(Object.keys(expected));
    for (const [name, { value }] of Object.entries(examples)) {
      const accepted = await fetcher.http.post('/v1/fetcher').send(value);
      expect(accepted.status, `${name}: ${JSON.stringify(accepted.body)}`).toBe(202);
      expect(accepted.body.message).toBe(submit.responses['202'].content?.['application/json']?.example.message);
      const job = await waitForJob(fetcher.http, accepted.body.jobId as string);
      expect(job.status, `${name}: ${JSON.stringify(job.error)}`).toBe('completed');
      expect(job.result?.rowCounts, name).toEqual(expected[name]);
      if (name === 'walkthrough') walkthroughJob = job;
    }
    const again = await fetcher.http.post('/v1/fetcher').send(prefilledBody(submit));
    expect(again.status).toBe(200);
    expect(again.body.message).toBe(submit.responses['200'].content?.['application/json']?.example.message);
  });
  it('answers 500 FET-0002 as documented where a secret or a result needs a key version no longer configured', async () => {
    // The same store, booted with only a version-2 master key: what version 1 sealed cannot be opened.
    const rotated = await startEmbeddedFetcher(
      { APP_ENC_KEY: Buffer.alloc(32, 0x2b).toString('base64'), APP_ENC_KEY_VERSION: '2' },
      { dataDir: fetcher.dataDir },
    );
    try {
      const submit = prefilledBody(document.paths['/v1/fetcher'].post);
      const calls: Array<[string, string, () => Promise<{ status: number; body: unknown }>]> = [
        ['/v1/management/connections/{id}/test', 'post', () => rotated.http.post(`/v1/management/connections/${connectionId}/test`)],
        ['/v1/management/connections/{id}/schema', 'get', () => rotated.http.get(`/v1/management/connections/${connectionId}/schema`)],
        [
          '/v1/management/connections/validate-schema',
          'post',
          () => rotated.http.post('/v1/management/connections/validate-schema').send({ mappedFields: submit.dataRequest.mappedFields }),
        ],
        // Not a duplicate, so the job's connections are opened.
        [
          '/v1/fetcher',
          'post',
          () => rotated.http.post('/v1/fetcher').send({ ...submit, metadata: { source: 'reporter', run: 'rotated' } }),
        ],
        ['/v1/fetcher/{id}/result', 'get', () => rotated.http.get(`/v1/fetcher/${walkthroughJob.id}/result`)],
      ];
      for (const [path, method, call] of calls) {
        const response = await call();
        expect({ status: response.status, body: response.body }, `${method} ${path}`).toEqual({
          status: 500,
          body: errorExamples(document.paths[path][method], 500)['FET-0002'].value,
        });
      }
    } finally {
      await rotated.close();
    }
  });

  it('answers 502 FET-1104 as documented for a completed job whose stored object is gone', async () => {
    const storage = fetcher.config.storage;
    if (storage.kind !== 'local') throw new Error('the embedded Fetcher stores results locally');
    rmSync(join(storage.resultsDir, walkthroughJob.resultPath as string));
    const response = await fetcher.http.get(`/v1/fetcher/${walkthroughJob.id}/result`);
    const documented = errorExamples(document.paths['/v1/fetcher/{id}/result'].get, 502)['FET-1104'].value;
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ ...documented, message: documented.message.replace(EXAMPLE_ID, walkthroughJob.id) });
  });
});
