import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, TEST_MASTER_KEY, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTempDatabase } from '../helpers/pg-database.js';
import { decodeStoredResult } from '../helpers/result-decoder.js';
import { ACCOUNTS_ROWS, INVOICE_ROWS, SOURCE_FIXTURE_SQL } from '../helpers/source-fixtures.js';

type TempDb = Awaited<ReturnType<typeof createTempDatabase>>;

describe('extraction jobs, embedded mode (role all, SQLite, in-process queue, local results)', () => {
  let fetcher: EmbeddedFetcher;
  let source: TempDb;
  const product = 'reporter';

  beforeAll(async () => {
    source = await createTempDatabase('e2e_jobs');
    await source.query(SOURCE_FIXTURE_SQL);
    fetcher = await startEmbeddedFetcher();
    await registerPostgres(fetcher.http, source, { configName: 'pg_main', product });
    await registerPostgres(fetcher.http, source, { configName: 'pg_other_product', product: 'billing' });
  });

  afterAll(async () => {
    await fetcher?.close();
    await source?.drop();
  });

  const submit = (body: unknown) => fetcher.http.post('/v1/fetcher').send(body as object);
  const readResult = (resultPath: string) => {
    const stored = readFileSync(join(fetcher.config.dataDir, 'results', resultPath));
    return decodeStoredResult(stored, TEST_MASTER_KEY);
  };

  it('extracts public.accounts, accounting.invoices and unqualified accounts under the result keys of docs/api.md', async () => {
    const response = await submit({
      dataRequest: {
        mappedFields: {
          pg_main: {
            'public.accounts': ['id', 'email'],
            'accounting.invoices': ['*'],
            accounts: ['balance', 'created_at'],
          },
        },
      },
      metadata: { source: product, correlationId: 'multi-schema' },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ status: 'pending', message: 'Job created and queued for processing' });

    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.resultPath).toBe(`external-data/${job.id}.json`);
    const { plaintext, hmac } = readResult(job.resultPath as string);
    expect(hmac).toBe(job.resultHmac);

    const result = JSON.parse(plaintext);
    expect(Object.keys(result.pg_main)).toEqual(['accounting.invoices', 'accounts']);
    expect(result.pg_main.accounts).toEqual(ACCOUNTS_ROWS);
    expect(Object.keys(result.pg_main.accounts[0])).toEqual(['id', 'email', 'balance', 'created_at']);
    expect(result.pg_main['accounting.invoices']).toEqual(INVOICE_ROWS);
    expect(job.result).toEqual({
      sizeBytes: Buffer.byteLength(plaintext),
      rowCount: 5,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      rowCounts: { pg_main: { 'accounting.invoices': 2, accounts: 3 } },
    });
  });

  it('writes compact JSON with sorted tables and an empty table as []', async () => {
    const response = await submit({
      dataRequest: { mappedFields: { pg_main: { empty_table: ['*'], 'accounting.invoices': ['id'] } } },
      metadata: { source: product, correlationId: 'compact' },
    });
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(readResult(job.resultPath as string).plaintext).toBe(
      '{"pg_main":{"accounting.invoices":[{"id":10},{"id":11}],"empty_table":[]}}',
    );
  });

  it('keeps values exact through the whole pipeline (docs/value-mapping.md)', async () => {
    await source.query(`
      CREATE TABLE fidelity (id int PRIMARY KEY, big int8, amount numeric(38,10), at timestamptz, local_at timestamp, day date,
        doc jsonb, raw bytea, tags text[], ok bool, note text);
      INSERT INTO fidelity VALUES (1, 9007199254740993, '1234567890123456789012345678.0123456789', '2026-01-02 03:04:05.123456+00',
        '2026-01-02 03:04:05.654321', '2026-02-28', '{"n": 12345678901234567890, "s": "a b"}', '\\x00ff', '{a,"b c",NULL}', true,
        E'quote " backslash \\\\ newline\n ção 😀');
    `);
    const response = await submit({
      dataRequest: { mappedFields: { pg_main: { fidelity: ['*'] } } },
      metadata: { source: product, correlationId: 'fidelity' },
    });
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('completed');
    expect(readResult(job.resultPath as string).plaintext).toBe(
      '{"pg_main":{"fidelity":[{"id":1,"big":9007199254740993,"amount":"1234567890123456789012345678.0123456789",' +
        '"at":"2026-01-02T03:04:05.123456Z","local_at":"2026-01-02T03:04:05.654321","day":"2026-02-28",' +
        '"doc":{"n":12345678901234567890,"s":"a b"},"raw":"AP8=","tags":["a","b c",null],"ok":true,' +
        `"note":${JSON.stringify('quote " backslash \\ newline\n ção 😀')}}]}}`,
    );
  });

  it('serves Swagger UI, the OpenAPI document, health, readiness and version', async () => {
    const ui = await fetcher.http.get('/swagger/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
    const document = await fetcher.http.get('/swagger-json');
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/v1/management/connections', '/v1/management/connections/{id}', '/v1/fetcher', '/v1/fetcher/{id}']),
    );
    expect((await fetcher.http.get('/health')).body).toEqual({ status: 'healthy' });
    const ready = await fetcher.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      role: 'all',
      checks: {
        database: { status: 'up', kind: 'sqlite' },
        queue: { status: 'up', kind: 'in-process' },
        storage: { status: 'up', kind: 'local' },
      },
    });
    expect(ready.body.checks.database.latencyMs).toEqual(expect.any(Number));
    expect((await fetcher.http.get('/version')).body).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect((await fetcher.http.get('/metrics')).text).toContain('fetcher_jobs_finished_total');
  });

  describe('deduplication', () => {
    const request = (correlationId: string) => ({
      dataRequest: { mappedFields: { pg_main: { accounts: ['id'] } } },
      metadata: { source: product, correlationId },
    });

    it('returns the same job with 200 for the same request within the window', async () => {
      const first = await submit(request('dedup-1'));
      const second = await submit(request('dedup-1'));
      expect(first.status).toBe(202);
      expect(second.status).toBe(200);
      expect(second.body.jobId).toBe(first.body.jobId);
      expect(second.body.message).toBe('Duplicate request detected - returning existing job');
    });

    it('treats key order as the same request', async () => {
      const first = await submit({ metadata: { correlationId: 'dedup-order', source: product }, dataRequest: request('x').dataRequest });
      const second = await submit(request('dedup-order'));
      expect(second.status).toBe(200);
      expect(second.body.jobId).toBe(first.body.jobId);
    });

    it('creates a new job for another correlationId', async () => {
      const first = await submit(request('dedup-2a'));
      const second = await submit(request('dedup-2b'));
      expect(second.status).toBe(202);
      expect(second.body.jobId).not.toBe(first.body.jobId);
    });

    it('creates a new job when the earlier twin failed', async () => {
      const failing = {
        dataRequest: { mappedFields: { pg_main: { no_such_table: ['id'] } } },
        metadata: { source: product, correlationId: 'dedup-failed' },
      };
      const first = await submit(failing);
      expect((await waitForJob(fetcher.http, first.body.jobId)).status).toBe('failed');
      const retry = await submit(failing);
      expect(retry.status).toBe(202);
      expect(retry.body.jobId).not.toBe(first.body.jobId);
    });

    it('creates exactly one job for 20 identical requests sent at once', async () => {
      const responses = await Promise.all(Array.from({ length: 20 }, () => submit(request('dedup-burst'))));
      const ids = new Set(responses.map((response) => response.body.jobId));
      expect(ids.size).toBe(1);
      expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 200)).toHaveLength(19);
    });
  });

  describe('request validation (400 with the FET envelope)', () => {
    const valid = () => ({
      dataRequest: { mappedFields: { pg_main: { accounts: ['id'] } } },
      metadata: { source: product },
    });

    it.each([
      ['missing metadata.source', { ...valid(), metadata: { correlationId: 'x' } }, 'FET-0402', 'metadata.source'],
      ['blank metadata.source', { ...valid(), metadata: { source: '   ' } }, 'FET-0402', 'metadata.source'],
      ['numeric metadata.source', { ...valid(), metadata: { source: 42 } }, 'FET-0402', 'metadata.source'],
      ['missing metadata', { dataRequest: valid().dataRequest }, 'FET-0402', 'metadata'],
    ])('%s', async (_name, body, code, field) => {
      const response = await submit(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe(code);
      expect(Object.keys(response.body.fields ?? {})).toContain(field);
    });

    it('refuses 11 datasources', async () => {
      const mappedFields = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`ds_${i}`, { t: ['id'] }]));
      const response = await submit({ dataRequest: { mappedFields }, metadata: { source: product } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'FET-1061', message: 'maximum 10 datasources allowed per job, got 11' });
    });

    it('refuses "*" beside other names', async () => {
      const response = await submit({
        dataRequest: { mappedFields: { pg_main: { accounts: ['*', 'id'] } } },
        metadata: { source: product },
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0401');
      expect(response.body.message).toContain('"*" must be the only entry');
    });

    it('refuses an empty field list', async () => {
      const response = await submit({ dataRequest: { mappedFields: { pg_main: { accounts: [] } } }, metadata: { source: product } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0401');
      expect(response.body.details).toEqual([expect.objectContaining({ datasource: 'pg_main', table: 'accounts' })]);
    });

    it('refuses an unknown JSON field, naming it', async () => {
      const response = await submit({ ...valid(), dataRequest: { ...valid().dataRequest, mappedFeilds: {} } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0001');
      expect(response.body.fields).toHaveProperty(['dataRequest.mappedFeilds']);
      const topLevel = await submit({ ...valid(), priority: 'high' });
      expect(topLevel.status).toBe(400);
      expect(topLevel.body.fields).toHaveProperty('priority');
    });

    it('refuses a connection of another product (FET-1016)', async () => {
      const response = await submit({
        dataRequest: { mappedFields: { pg_other_product: { accounts: ['id'] } } },
        metadata: { source: product },
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-1016');
      expect(response.body.message).toContain("'pg_other_product'");
    });

    it('compares metadata.source with the product case-insensitively', async () => {
      const response = await submit({
        dataRequest: { mappedFields: { pg_main: { accounts: ['id'] } } },
        metadata: { source: 'Reporter', correlationId: 'case' },
      });
      expect(response.status).toBe(202);
    });

    it('refuses a datasource whose host is down (FET-1040), naming it', async () => {
      await registerPostgres(fetcher.http, source, { configName: 'pg_down', product, port: 1 });
      const response = await submit({
        dataRequest: { mappedFields: { pg_main: { accounts: ['id'] }, pg_down: { accounts: ['id'] } } },
        metadata: { source: product },
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-1040');
      expect(response.body.message).toContain("Connection 'pg_down' is not available");
      expect(response.body.details).toEqual([expect.objectContaining({ datasource: 'pg_down', reason: 'unreachable' })]);
      expect(JSON.stringify(response.body)).not.toContain('not-needed-with-trust-auth');
    });

    it('refuses an unknown datasource (FET-1020), naming it', async () => {
      const response = await submit({ dataRequest: { mappedFields: { nope: { accounts: ['id'] } } }, metadata: { source: product } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-1020');
      expect(response.body.message).toContain('nope');
    });

    it('answers malformed JSON with FET-0001 and no stack', async () => {
      const response = await fetcher.http.post('/v1/fetcher').set('Content-Type', 'application/json').send('{"dataRequest":');
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'FET-0001', title: 'Bad Request', message: 'unable to parse request body' });
    });

    it('answers a body over 1 MiB with 413', async () => {
      const response = await fetcher.http
        .post('/v1/fetcher')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ metadata: { source: product, blob: 'x'.repeat(1_100_000) } }));
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('FET-0415');
    });

    it('answers an invalid job id with FET-0404 and an unknown one with 404', async () => {
      expect((await fetcher.http.get('/v1/fetcher/not-a-uuid')).body.code).toBe('FET-0404');
      const missing = await fetcher.http.get('/v1/fetcher/0190f3c2-0000-7000-8000-000000000000');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('FET-1001');
    });
  });

  it('fails the job (not the request) on unknown tables and fields, listing every one', async () => {
    const response = await submit({
      dataRequest: {
        mappedFields: {
          pg_main: {
            accounts: ['id', 'emial', 'nickname'],
            'accounting.invoices': ['id', 'total'],
            ghosts: ['id'],
            'nowhere.things': ['*'],
          },
        },
      },
      metadata: { source: product, correlationId: 'unknown-names' },
    });
    expect(response.status).toBe(202);
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('FET-1060');
    expect(job.error?.details).toEqual(
      expect.arrayContaining([
        { type: 'field_not_found', datasource: 'pg_main', table: 'accounts', field: 'emial' },
        { type: 'field_not_found', datasource: 'pg_main', table: 'accounts', field: 'nickname' },
        { type: 'field_not_found', datasource: 'pg_main', table: 'accounting.invoices', field: 'total' },
        { type: 'table_not_found', datasource: 'pg_main', table: 'ghosts' },
        { type: 'table_not_found', datasource: 'pg_main', table: 'nowhere.things' },
      ]),
    );
    expect(job.error?.details).toHaveLength(5);
    expect(job.resultPath).toBeUndefined();
    expect(existsSync(join(fetcher.config.dataDir, 'results', 'external-data', `${job.id}.json`))).toBe(false);
  });

  it('fails a job whose result exceeds limits.maxResultBytes and leaves no object behind', async () => {
    const response = await submit({
      dataRequest: { mappedFields: { pg_main: { accounts: ['*'] } }, limits: { maxResultBytes: 100 } },
      metadata: { source: product, correlationId: 'too-big' },
    });
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('FET-1101');
    expect(job.error?.message).toContain('100 bytes');
    const resultsDir = join(fetcher.config.dataDir, 'results');
    expect(existsSync(join(resultsDir, 'external-data', `${job.id}.json`))).toBe(false);
    const leftovers = existsSync(join(resultsDir, '.uploads')) ? readdirSync(join(resultsDir, '.uploads')) : [];
    expect(leftovers).toEqual([]);
  });

  it('refuses a per-job limit above the ceiling, naming it', async () => {
    const response = await submit({
      dataRequest: { mappedFields: { pg_main: { accounts: ['id'] } }, limits: { maxResultBytes: 268435457, timeoutMs: 0 } },
      metadata: { source: product },
    });
    expect(response.status).toBe(400);
    expect(response.body.fields).toEqual({
      'dataRequest.limits.timeoutMs': 'dataRequest.limits.timeoutMs must be a positive integer',
      'dataRequest.limits.maxResultBytes': 'dataRequest.limits.maxResultBytes must not exceed 268435456',
    });
  });
});
