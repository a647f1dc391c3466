import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { createTempDatabase, PG_READ_PATHS, type TempDatabase } from '../helpers/pg-database.js';

/** docs/api.md, "Limits": every limit, at the Manager and in the Worker. */
describe.each(PG_READ_PATHS)('extraction limits (PostgreSQL %s path)', (readPath) => {
  let fetcher: EmbeddedFetcher;
  let source: TempDatabase;
  const names = Array.from({ length: 11 }, (_, i) => `pg_${String(i).padStart(2, '0')}`);

  beforeAll(async () => {
    source = await createTempDatabase('e2e_limits');
    await source.query(`
      CREATE TABLE wide (${Array.from({ length: 51 }, (_, i) => `c${i} int`).join(', ')});
      INSERT INTO wide (c0) VALUES (1);
      ${Array.from({ length: 21 }, (_, i) => `CREATE TABLE t${i} (id int PRIMARY KEY); INSERT INTO t${i} VALUES (${i});`).join('\n')}
      CREATE TABLE slow_source (id int PRIMARY KEY);
      INSERT INTO slow_source SELECT g FROM generate_series(1, 3) g;
      CREATE VIEW slow_rows AS SELECT id, pg_sleep(0.4)::text AS waited FROM slow_source;
      CREATE VIEW sleepy AS SELECT 1 AS id, pg_sleep(30)::text AS waited;
      CREATE TABLE payload (id int PRIMARY KEY, body text);
      INSERT INTO payload SELECT g, repeat('x', 100) FROM generate_series(1, 100) g;
    `);
    fetcher = await startEmbeddedFetcher({ WORKER_CONCURRENCY: '2', POSTGRES_READ_PATH: readPath });
    for (const name of names) await registerPostgres(fetcher.http, source, { configName: name, product: 'reporter' });
  });

  afterAll(async () => {
    await fetcher?.close();
    await source?.drop();
  });

  const submit = (dataRequest: object, correlationId = String(Math.random())) =>
    fetcher.http.post('/v1/fetcher').send({ dataRequest, metadata: { source: 'reporter', correlationId } });

  describe('count limits at the Manager: the boundary passes, one more is a 400 FET-1061', () => {
    it('10 datasources are accepted, 11 refused', async () => {
      const ten = Object.fromEntries(names.slice(0, 10).map((name) => [name, { t0: ['id'] }]));
      expect((await submit({ mappedFields: ten })).status).toBe(202);
      const eleven = await submit({ mappedFields: Object.fromEntries(names.map((name) => [name, { t0: ['id'] }])) });
      expect(eleven.status).toBe(400);
      expect(eleven.body.code).toBe('FET-1061');
    });

    it('20 tables are accepted, 21 refused', async () => {
      const tables = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, ['id']]));
      const twenty = await submit({ mappedFields: { pg_00: tables(20) } });
      expect(twenty.status).toBe(202);
      expect((await waitForJob(fetcher.http, twenty.body.jobId)).result?.rowCount).toBe(20);
      const refused = await submit({ mappedFields: { pg_00: tables(21) } });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'FET-1061', message: "maximum 20 tables allowed per datasource, got 21 for 'pg_00'" });
    });

    it('50 fields are accepted, 51 refused; 50 filter fields too', async () => {
      const fields = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
      const fifty = await submit({ mappedFields: { pg_00: { wide: fields(50) } } });
      expect(fifty.status).toBe(202);
      expect((await waitForJob(fetcher.http, fifty.body.jobId)).status).toBe('completed');
      expect((await submit({ mappedFields: { pg_00: { wide: fields(51) } } })).body.code).toBe('FET-1061');
      const filters = (n: number) => ({ pg_00: { wide: Object.fromEntries(fields(n).map((field) => [field, { ne: [null] }])) } });
      expect((await submit({ mappedFields: { pg_00: { wide: ['c0'] } }, filters: filters(50) })).status).toBe(202);
      expect((await submit({ mappedFields: { pg_00: { wide: ['c0'] } }, filters: filters(51) })).body.code).toBe('FET-1061');
    });

    it('a lowered limit is enforced and a raised one is a 400 naming it', async () => {
      const lowered = await submit({
        mappedFields: { pg_00: { t0: ['id'], t1: ['id'], t2: ['id'] } },
        limits: { maxTablesPerDatasource: 2 },
      });
      expect(lowered.status).toBe(400);
      expect(lowered.body.message).toBe("maximum 2 tables allowed per datasource, got 3 for 'pg_00'");
      for (const [name, value] of [
        ['maxDatasources', 11],
        ['maxTablesPerDatasource', 21],
        ['maxFieldsPerTable', 51],
        ['maxParallelDatasources', 5],
        ['timeoutMs', 300_001],
        ['maxResultBytes', 268_435_457],
      ] as const) {
        const raised = await submit({ mappedFields: { pg_00: { t0: ['id'] } }, limits: { [name]: value } });
        expect(raised.status).toBe(400);
        expect(Object.keys(raised.body.fields)).toEqual([`dataRequest.limits.${name}`]);
      }
    });
  });

  describe('Manager-side filter validation (400 FET-0401 naming datasource, table, field and operator)', () => {
    it.each([
      ['an unknown operator', { pg_00: { t0: { id: { equal: [1] } } } }, { operator: 'equal' }],
      ['a wrong arity', { pg_00: { t0: { id: { between: [1] } } } }, { operator: 'between' }],
      ['a non-scalar value', { pg_00: { t0: { id: { in: [[1, 2]] } } } }, { operator: 'in' }],
      ['a datasource not in mappedFields', { pg_01: { t0: { id: { eq: [1] } } } }, { datasource: 'pg_01' }],
      ['a table not in mappedFields', { pg_00: { t9: { id: { eq: [1] } } } }, { table: 't9' }],
    ])('refuses %s', async (_name, filters, named) => {
      const response = await submit({ mappedFields: { pg_00: { t0: ['id'] } }, filters });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('FET-0401');
      expect(response.body.details[0]).toMatchObject({ type: 'invalid_filter', ...named });
    });

    it('fails the job (not the request) for a filter on an unknown column', async () => {
      const response = await submit({ mappedFields: { pg_00: { t0: ['id'] } }, filters: { pg_00: { t0: { nope: { eq: [1] } } } } });
      expect(response.status).toBe(202);
      const job = await waitForJob(fetcher.http, response.body.jobId);
      expect(job.error?.details).toEqual([
        expect.objectContaining({ type: 'invalid_filter', datasource: 'pg_00', table: 't0', field: 'nope' }),
      ]);
    });
  });

  it('never reads more than maxParallelDatasources datasources at once (queries sleeping in pg_sleep, sampled in pg_stat_activity)', async () => {
    const mappedFields = Object.fromEntries(names.slice(0, 8).map((name) => [name, { slow_rows: ['id'] }]));
    const response = await submit({ mappedFields, limits: { maxParallelDatasources: 2 } });
    expect(response.status).toBe(202);
    let most = 0;
    let job;
    const statements = new Set<string>();
    do {
      const { rows } = await source.query<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep' AND query LIKE '%slow_rows%' AND pid <> pg_backend_pid()",
      );
      for (const row of rows) statements.add(row.query.split(' ')[0]);
      most = Math.max(most, rows.length);
      job = (await fetcher.http.get(`/v1/fetcher/${response.body.jobId}`)).body;
      await new Promise((done) => setTimeout(done, 50));
    } while (job.status === 'pending' || job.status === 'processing');
    expect(job.status).toBe('completed');
    expect(most).toBe(2);
    // The read path the process was configured with is the one that ran.
    expect([...statements]).toEqual([readPath === 'copy' ? 'COPY' : 'SELECT']);
  });

  it('cancels a job past its timeout: timeout error within ~1 s of the limit, query gone from the server, nothing stored', async () => {
    const started = Date.now();
    const response = await submit({ mappedFields: { pg_00: { sleepy: ['id'] } }, limits: { timeoutMs: 2_000 } });
    const job = await waitForJob(fetcher.http, response.body.jobId);
    const elapsed = Date.now() - started;
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'FET-1102', message: 'extraction exceeded its timeout of 2000 ms; nothing was stored' });
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(elapsed).toBeLessThan(4_000);
    const {
      rows: [{ running }],
    } = await source.query<{ running: string }>(
      "SELECT count(*) AS running FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%sleepy%' AND state = 'active' AND pid <> pg_backend_pid()",
    );
    expect(Number(running)).toBe(0);
    expect(existsSync(join(fetcher.config.dataDir, 'results', 'external-data', `${job.id}.json`))).toBe(false);
  });
});

describe.each(PG_READ_PATHS)('ENGINE_MAX_RESULT_BYTES lowers the size ceiling (PostgreSQL %s path)', (readPath) => {
  let fetcher: EmbeddedFetcher;
  let source: TempDatabase;
  beforeAll(async () => {
    source = await createTempDatabase('e2e_ceiling');
    await source.query(
      "CREATE TABLE payload (id int PRIMARY KEY, body text); INSERT INTO payload SELECT g, repeat('x', 100) FROM generate_series(1, 100) g;",
    );
    fetcher = await startEmbeddedFetcher({ ENGINE_MAX_RESULT_BYTES: '1000', POSTGRES_READ_PATH: readPath });
    await registerPostgres(fetcher.http, source, { configName: 'pg_small', product: 'reporter' });
  });
  afterAll(async () => {
    await fetcher?.close();
    await source?.drop();
  });

  it('fails a bigger job with the size error and stores nothing; a per-job limit above it is a 400', async () => {
    const response = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { pg_small: { payload: ['*'] } } }, metadata: { source: 'reporter' } });
    const job = await waitForJob(fetcher.http, response.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'FET-1101', message: expect.stringContaining('1000 bytes') });
    const results = join(fetcher.config.dataDir, 'results');
    expect(existsSync(join(results, 'external-data', `${job.id}.json`))).toBe(false);
    expect(existsSync(join(results, '.uploads')) ? readdirSync(join(results, '.uploads')) : []).toEqual([]);

    const raised = await fetcher.http.post('/v1/fetcher').send({
      dataRequest: { mappedFields: { pg_small: { payload: ['id'] } }, limits: { maxResultBytes: 1001 } },
      metadata: { source: 'reporter' },
    });
    expect(raised.status).toBe(400);
    expect(raised.body.fields['dataRequest.limits.maxResultBytes']).toBe('dataRequest.limits.maxResultBytes must not exceed 1000');
  });
});
