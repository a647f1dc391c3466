import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, TEST_MASTER_KEY, waitForJob, type EmbeddedFetcher, type JobView } from '../helpers/fetcher-app.js';
import { internalPostgresEnv, useTempDatabase } from '../helpers/pg-database.js';
import { listenLocally, rawGet } from '../helpers/raw-http.js';
import { decodeStoredResult } from '../helpers/result-decoder.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const ALPHA = `alpha_${randomBytes(3).toString('hex')}`;
const BETA = `beta_${randomBytes(3).toString('hex')}`;

interface Part {
  datasource: string;
  table: string;
  path: string;
  format: string;
  compression: string;
  sizeBytes: number;
  rowCount: number;
  sha256: string;
  hmac: string;
}
type PartsJob = JobView & { output: { format: string; compression: string }; result: JobView['result'] & { parts?: Part[] } };

/**
 * GET /v1/fetcher/{id}/result/{datasource}/{table} on an embedded Fetcher (SQLite, local results, API
 * keys): a csv+gzip job's parts, each verified while it streams, sent as stored with its encoding.
 */
describe('per-table result parts: GET /v1/fetcher/{id}/result/{datasource}/{table}', () => {
  const source = useTempDatabase('e2e_result_parts');
  let fetcher: EmbeddedFetcher;
  let base: string;
  const keys = { alpha: '', beta: '' };
  let csv: PartsJob;
  let json: PartsJob;

  const results = () => join(fetcher.dataDir, 'results');
  const as = (key: string) => bearer(key);
  const submit = async (body: object, key = keys.alpha) => {
    const response = await fetcher.http.post('/v1/fetcher').set(as(key)).send(body);
    if (response.status !== 202) throw new Error(`submit: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.jobId as string;
  };
  const request = (
    correlationId: string,
    output?: object,
    mappedFields: object = { src: { orders: ['*'], 'accounting.invoices': ['*'] } },
  ) => ({
    dataRequest: { mappedFields },
    ...(output ? { output } : {}),
    metadata: { source: ALPHA, correlationId },
  });
  const partUrl = (job: string, datasource: string, table: string, query = '') =>
    `${base}/v1/fetcher/${job}/result/${encodeURIComponent(datasource)}/${encodeURIComponent(table)}${query}`;

  beforeAll(async () => {
    await source().query(`
      CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL, amount numeric(10,2));
      INSERT INTO orders VALUES (1, 'pen, blue', 1.50), (2, 'ink "black"', NULL), (3, 'Zoë', 12.00);
      CREATE SCHEMA accounting;
      CREATE TABLE accounting.invoices (id int PRIMARY KEY, due date NOT NULL);
      INSERT INTO accounting.invoices VALUES (10, '2026-03-01'), (11, '2026-04-01');`);
    fetcher = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN, ...internalPostgresEnv('src', source()) });
    base = await listenLocally(fetcher.app);
    const issue = async (productName: string) =>
      (await fetcher.http.post('/v1/management/api-keys').set(as(ADMIN)).send({ productName, name: 'parts e2e' })).body.key as string;
    [keys.alpha, keys.beta] = await Promise.all([issue(ALPHA), issue(BETA)]);
    const [csvId, jsonId] = [await submit(request('csv', { format: 'csv', compression: 'gzip' })), await submit(request('json'))];
    csv = (await waitForJob(withKey(fetcher, ADMIN), csvId)) as PartsJob;
    json = (await waitForJob(withKey(fetcher, ADMIN), jsonId)) as PartsJob;
    expect(csv.status, JSON.stringify(csv.error)).toBe('completed');
    expect(json.status, JSON.stringify(json.error)).toBe('completed');
  }, 60_000);

  afterAll(async () => {
    await fetcher?.close();
  });

  it('lists one part per table in result order, each under the job’s folder, beside the manifest at resultPath', () => {
    expect(csv.output).toEqual({ format: 'csv', compression: 'gzip' });
    expect(json.output).toEqual({ format: 'json', compression: 'none' });
    expect(json.result).not.toHaveProperty('parts');
    const parts = csv.result.parts as Part[];
    expect(parts.map(({ datasource, table, path, rowCount }) => ({ datasource, table, path, rowCount }))).toEqual([
      { datasource: 'src', table: 'accounting.invoices', path: `external-data/${csv.id}/src/accounting.invoices.csv.gz`, rowCount: 2 },
      { datasource: 'src', table: 'orders', path: `external-data/${csv.id}/src/orders.csv.gz`, rowCount: 3 },
    ]);
    expect(csv.resultPath).toBe(`external-data/${csv.id}.json`);
    const stored = readdirSync(results(), { recursive: true })
      .map(String)
      .filter((name) => name.includes(csv.id) && !name.startsWith(join('external-data', '.attempts')))
      .sort();
    expect(stored).toEqual(
      [csv.id, `${csv.id}.json`, `${csv.id}/src`, `${csv.id}/src/accounting.invoices.csv.gz`, `${csv.id}/src/orders.csv.gz`].map((name) =>
        join('external-data', name),
      ),
    );
    // Nothing of the attempt is left once the commit moved it all (its job's folder of attempts stays, as for a json result).
    expect(readdirSync(join(results(), 'external-data', '.attempts', csv.id))).toEqual([]);
  });

  it('answers the manifest at GET …/result: application/json, verified, its digests the job’s', async () => {
    const answer = await rawGet(`${base}/v1/fetcher/${csv.id}/result`, as(keys.alpha));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBe(`"${csv.result?.sha256}"`);
    expect(answer.sha256).toBe(csv.result?.sha256);
    expect(JSON.parse(answer.body.toString())).toEqual({ version: 1, format: 'csv', compression: 'gzip', parts: csv.result.parts });
  });

  it('streams each part as stored, gzip-encoded, its length, ETag and digests those the job lists', async () => {
    for (const part of csv.result.parts as Part[]) {
      const answer = await rawGet(partUrl(csv.id, part.datasource, part.table), as(keys.alpha));
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(answer.headers['content-encoding']).toBe('gzip');
      expect(Number(answer.headers['content-length'])).toBe(part.sizeBytes);
      expect(answer.headers.etag).toBe(`"${part.sha256}"`);
      expect(answer.headers['x-result-sha256']).toBe(part.sha256);
      expect(answer.headers['x-result-hmac']).toBe(part.hmac);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.cut).toBe(false);
      expect(answer.sha256).toBe(part.sha256);
      // And the stored object is that file sealed, as the docs say.
      const sealed = decodeStoredResult(readFileSync(join(results(), part.path)), TEST_MASTER_KEY);
      expect(sealed.bytes.equals(answer.body)).toBe(true);
      expect(sealed.hmac).toBe(part.hmac);
    }
    const orders = await rawGet(partUrl(csv.id, 'src', 'orders'), as(keys.alpha));
    expect(gunzipSync(orders.body).toString()).toBe('id,item,amount\n1,"pen, blue",1.50\n2,"ink ""black""",\n3,Zoë,12.00\n');
  });

  it('with raw=true, streams the sealed part object exactly as stored', async () => {
    const part = (csv.result.parts as Part[])[1] as Part;
    const answer = await rawGet(partUrl(csv.id, 'src', 'orders', '?raw=true'), as(keys.alpha));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/octet-stream');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBeUndefined();
    expect(answer.body.equals(readFileSync(join(results(), part.path)))).toBe(true);
  });

  it('answers 401 without a credential, 404 to another product, 200 to the owner and to the operator', async () => {
    expect((await rawGet(partUrl(csv.id, 'src', 'orders'))).status).toBe(401);
    const foreign = await fetcher.http.get(`/v1/fetcher/${csv.id}/result/src/orders`).set(as(keys.beta));
    expect([foreign.status, foreign.body.code]).toEqual([404, 'FET-1001']);
    expect(foreign.body.message).toContain('job entity');
    for (const key of [keys.alpha, ADMIN]) expect((await rawGet(partUrl(csv.id, 'src', 'orders'), as(key))).status).toBe(200);
  });

  it('answers 404 naming what is missing: a datasource, a table, or parts at all for a one-object result', async () => {
    const get = (job: string, datasource: string, table: string) =>
      fetcher.http.get(`/v1/fetcher/${job}/result/${encodeURIComponent(datasource)}/${encodeURIComponent(table)}`).set(as(keys.alpha));
    const noDatasource = await get(csv.id, 'pg_other', 'orders');
    expect([noDatasource.status, noDatasource.body.code]).toEqual([404, 'FET-1001']);
    expect(noDatasource.body.message).toBe(`the result of job ${csv.id} has no datasource "pg_other"`);
    const noTable = await get(csv.id, 'src', 'public.orders');
    expect([noTable.status, noTable.body.code]).toEqual([404, 'FET-1001']);
    expect(noTable.body.message).toBe(`the result of job ${csv.id} has no table "public.orders" of datasource "src"`);
    expect(noTable.body.details).toEqual([
      { type: 'part_not_found', datasource: 'src', table: 'public.orders', message: 'no part of the result is of this table' },
    ]);
    const oneObject = await get(json.id, 'src', 'orders');
    expect([oneObject.status, oneObject.body.code]).toEqual([404, 'FET-1001']);
    expect(oneObject.body.message).toContain('is one json object and has no parts');
  });

  it('answers 400 for a bad id or query, and 409 for a job that has no result', async () => {
    const bad = await fetcher.http.get('/v1/fetcher/nope/result/src/orders').set(as(keys.alpha));
    expect([bad.status, bad.body.code]).toEqual([400, 'FET-0404']);
    const query = await fetcher.http.get(`/v1/fetcher/${csv.id}/result/src/orders?raw=yes`).set(as(keys.alpha));
    expect([query.status, query.body.code]).toEqual([400, 'FET-0405']);
    const failedId = await submit(request('failed', { format: 'csv' }, { src: { ghosts: ['id'] } }));
    expect((await waitForJob(withKey(fetcher, ADMIN), failedId)).status).toBe('failed');
    const failed = await fetcher.http.get(`/v1/fetcher/${failedId}/result/src/ghosts`).set(as(keys.alpha));
    expect([failed.status, failed.body.code]).toEqual([409, 'FET-1108']);
  });

  it('refuses a tampered part (one byte of the stored file changed), and a missing one, with 502 before any byte', async () => {
    const id = await submit(request('tamper', { format: 'csv', compression: 'gzip' }));
    const job = (await waitForJob(withKey(fetcher, ADMIN), id)) as PartsJob;
    const [invoices, orders] = job.result.parts as Part[];
    const file = join(results(), (orders as Part).path);
    const stored = readFileSync(file);
    const tampered = Buffer.from(stored);
    const at = Math.floor(tampered.length / 2);
    tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(file, tampered);

    const answer = await rawGet(partUrl(id, 'src', 'orders'), as(keys.alpha));
    // A part this small is held back whole until its tag is checked: the refusal comes before the first byte.
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 'FET-1104' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).not.toBe(`"${(orders as Part).sha256}"`);

    rmSync(join(results(), (invoices as Part).path));
    const missing = await fetcher.http.get(`/v1/fetcher/${id}/result/src/accounting.invoices`).set(as(keys.alpha));
    expect([missing.status, missing.body.code, missing.body.message]).toEqual([
      502,
      'FET-1104',
      `the result object of job ${id} is missing from the store`,
    ]);
  });

  it('DELETE …/result removes every part and the manifest, and the parts answer 410 from then on', async () => {
    const id = await submit(request('delete', { format: 'csv', compression: 'none' }));
    const job = (await waitForJob(withKey(fetcher, ADMIN), id)) as PartsJob;
    const files = [job.resultPath as string, ...(job.result.parts as Part[]).map((part) => part.path)];
    expect(files.every((path) => readdirSync(join(results(), path, '..')).length > 0)).toBe(true);
    expect((await fetcher.http.delete(`/v1/fetcher/${id}/result`).set(as(keys.alpha))).status).toBe(204);
    for (const path of files) expect(() => readFileSync(join(results(), path))).toThrow(/ENOENT/);
    const gone = await fetcher.http.get(`/v1/fetcher/${id}/result/src/orders`).set(as(keys.alpha));
    expect([gone.status, gone.body.code]).toEqual([410, 'FET-1109']);
  });
});

/** The fetcher's supertest agent with one credential on every request (waitForJob takes an agent). */
function withKey(fetcher: EmbeddedFetcher, key: string): EmbeddedFetcher['http'] {
  return new Proxy(fetcher.http, {
    get(target, property, receiver) {
      if (property !== 'get') return Reflect.get(target, property, receiver) as unknown;
      return (path: string) => target.get(path).set(bearer(key));
    },
  });
}
