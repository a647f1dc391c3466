import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalDatasourceId } from '../../src/config/internal-datasources.config.js';
import { bearer, withBearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;

/**
 * Two products on one Fetcher: each sees, changes, tests and uses only its own connections and
 * jobs (another product's answer 404 and are left out of lists), cannot act under the other's
 * name, and the operator sees both. Internal datasources follow DATASOURCE_<NAME>_PRODUCTS.
 */
describe('authorization from the principal', () => {
  const source = useTempDatabase('e2e_authz');
  let fetcher: EmbeddedFetcher;
  let alpha: string;
  let beta: string;
  const as = (key: string) => withBearer(fetcher.http, key);

  beforeAll(async () => {
    await source().query("CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (1, 'a@x'), (2, 'b@x')");
    const internal = (name: string, products?: string) => ({
      [`DATASOURCE_${name}_CONFIG_NAME`]: name.toLowerCase(),
      [`DATASOURCE_${name}_TYPE`]: 'POSTGRESQL',
      [`DATASOURCE_${name}_HOST`]: source().host,
      [`DATASOURCE_${name}_PORT`]: String(source().port),
      [`DATASOURCE_${name}_DATABASE`]: source().name,
      [`DATASOURCE_${name}_USER`]: source().user,
      ...(products ? { [`DATASOURCE_${name}_PRODUCTS`]: products } : {}),
    });
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: ADMIN,
      ...internal('SHARED_DWH'),
      ...internal('ALPHA_DWH', 'Alpha'),
    });
    const issue = async (productName: string) =>
      (await as(ADMIN).post('/v1/management/api-keys', { productName, name: 'e2e' })).body.key as string;
    [alpha, beta] = await Promise.all([issue('alpha'), issue('beta')]);
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  const connectionBody = (configName: string) => pgConnectionBody(source(), { configName, password: 'trust-auth-ignores-it' });
  const createAs = async (key: string, header?: string) => {
    const configName = `pg_${randomUUID().slice(0, 8)}`;
    let request = fetcher.http.post('/v1/management/connections').set(bearer(key));
    if (header) request = request.set('X-Product-Name', header);
    const response = await request.send(connectionBody(configName));
    return response;
  };
  const job = (configName: string, source: string) => ({
    dataRequest: { mappedFields: { [configName]: { accounts: ['id', 'email'] } } },
    metadata: { source, correlationId: randomUUID() },
  });

  it('gives a product key its product without X-Product-Name, and refuses naming another product', async () => {
    const created = await createAs(alpha);
    expect(created.status).toBe(201);
    expect(created.body.productName).toBe('alpha');
    const other = await createAs(alpha, 'beta');
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('FET-0011');
    expect((await createAs(alpha, 'ALPHA')).body.productName).toBe('alpha');
    expect((await createAs(ADMIN)).body.code).toBe('FET-0403');
  });

  it("makes another product's connection not exist for B: read, change, delete, test, schema, validate all 404", async () => {
    const { body: owned } = await createAs(alpha);
    const path = `/v1/management/connections/${owned.id}`;
    const attempts = {
      get: await as(beta).get(path),
      patch: await as(beta).patch(path, { port: 1 }),
      delete: await as(beta).delete(path),
      test: await as(beta).post(`${path}/test`),
      schema: await as(beta).get(`${path}/schema`),
    };
    for (const [what, response] of Object.entries(attempts)) {
      expect(response.status, what).toBe(404);
      expect(response.body.code, what).toBe('FET-1001');
    }
    const validation = await as(beta).post('/v1/management/connections/validate-schema', {
      mappedFields: { [owned.configName]: { accounts: ['id'] } },
    });
    expect(validation.status).toBe(422);
    expect(validation.body.details).toEqual([{ type: 'datasource_not_found', datasource: owned.configName }]);

    // Nothing changed, and A and the operator still reach it.
    expect((await as(alpha).get(path)).body).toEqual(owned);
    expect((await as(alpha).post(`${path}/test`)).status).toBe(200);
    expect((await as(ADMIN).get(path)).status).toBe(200);
    expect(
      (await as(alpha).post('/v1/management/connections/validate-schema', { mappedFields: { [owned.configName]: { accounts: ['id'] } } }))
        .status,
    ).toBe(200);
  });

  it("counts only the caller's own connections in list totals; the operator counts both", async () => {
    const before = {
      alpha: (await as(alpha).get('/v1/management/connections?limit=100')).body,
      beta: (await as(beta).get('/v1/management/connections?limit=100')).body,
      operator: (await as(ADMIN).get('/v1/management/connections?limit=100')).body,
    };
    await Promise.all([createAs(alpha), createAs(alpha), createAs(beta)]);
    const after = {
      alpha: (await as(alpha).get('/v1/management/connections?limit=100')).body,
      beta: (await as(beta).get('/v1/management/connections?limit=100')).body,
      operator: (await as(ADMIN).get('/v1/management/connections?limit=100')).body,
    };
    expect(after.alpha.total - before.alpha.total).toBe(2);
    expect(after.beta.total - before.beta.total).toBe(1);
    expect(after.operator.total - before.operator.total).toBe(3);
    const owners = (page: { items: Array<{ productName?: string; internal?: boolean }> }) =>
      new Set(page.items.map((item) => (item.internal ? 'internal' : item.productName)));
    expect(owners(after.alpha)).toEqual(new Set(['alpha', 'internal']));
    expect(owners(after.beta)).toEqual(new Set(['beta', 'internal']));
    expect(owners(after.operator)).toEqual(new Set(['alpha', 'beta', 'internal']));
    expect((await as(beta).get('/v1/management/connections').set('X-Product-Name', 'alpha')).status).toBe(403);
    const named = await as(alpha).get('/v1/management/connections?limit=100').set('X-Product-Name', 'alpha');
    expect(named.body.total).toBe(after.alpha.items.filter((item: { internal?: boolean }) => !item.internal).length);
  });

  it("keeps jobs to their product: B cannot submit as A, read A's job, or use A's connection", async () => {
    const { body: owned } = await createAs(alpha);
    const submitted = await as(alpha).post('/v1/fetcher', job(owned.configName, 'alpha'));
    expect(submitted.status).toBe(202);

    const impersonating = await as(beta).post('/v1/fetcher', job(owned.configName, 'Alpha'));
    expect(impersonating.status).toBe(403);
    expect(impersonating.body.code).toBe('FET-0011');
    // The same request as A's, word for word: a duplicate must not hand A's job to B either.
    const duplicate = await as(beta).post('/v1/fetcher', {
      ...job(owned.configName, 'alpha'),
      metadata: (await as(alpha).get(`/v1/fetcher/${submitted.body.jobId}`)).body.metadata,
    });
    expect(duplicate.status).toBe(403);
    // To B, A's connection is a name nobody registered; the operator is told whose it is.
    const borrowing = await as(beta).post('/v1/fetcher', job(owned.configName, 'beta'));
    expect(borrowing.status).toBe(400);
    expect(borrowing.body.code).toBe('FET-1020');
    const operatorBorrowing = await as(ADMIN).post('/v1/fetcher', job(owned.configName, 'beta'));
    expect(operatorBorrowing.status).toBe(400);
    expect(operatorBorrowing.body.code).toBe('FET-1016');

    expect((await as(beta).get(`/v1/fetcher/${submitted.body.jobId}`)).status).toBe(404);
    const done = await waitForJob({ get: (path: string) => as(alpha).get(path) } as never, submitted.body.jobId);
    expect(done.status).toBe('completed');
    expect((await as(ADMIN).get(`/v1/fetcher/${submitted.body.jobId}`)).body.status).toBe('completed');
  });

  it('leaves unassigned connections and assignment to operators', async () => {
    expect((await as(alpha).get('/v1/management/connections/unassigned')).status).toBe(403);
    const { body: owned } = await createAs(alpha);
    const assign = await fetcher.http.post(`/v1/management/connections/${owned.id}/assign`).set(bearer(beta)).set('X-Product-Name', 'beta');
    expect(assign.status).toBe(403);
    expect((await as(ADMIN).get('/v1/management/connections/unassigned')).status).toBe(200);
    const operatorAssign = await fetcher.http
      .post(`/v1/management/connections/${owned.id}/assign`)
      .set(bearer(ADMIN))
      .set('X-Product-Name', 'beta');
    expect(operatorAssign.body.code).toBe('FET-1015');
  });

  it('opens an internal datasource to every product, or only to those DATASOURCE_<NAME>_PRODUCTS names', async () => {
    const shared = internalDatasourceId('shared_dwh');
    const restricted = internalDatasourceId('alpha_dwh');
    for (const key of [alpha, beta]) expect((await as(key).get(`/v1/management/connections/${shared}`)).status).toBe(200);
    expect((await as(alpha).get(`/v1/management/connections/${restricted}`)).status).toBe(200);
    expect((await as(beta).get(`/v1/management/connections/${restricted}`)).status).toBe(404);
    expect((await as(beta).post(`/v1/management/connections/${restricted}/test`)).status).toBe(404);
    const listed = (await as(beta).get('/v1/management/connections?limit=100')).body.items.map(
      (item: { configName: string }) => item.configName,
    );
    expect(listed).toContain('shared_dwh');
    expect(listed).not.toContain('alpha_dwh');

    const allowed = await as(alpha).post('/v1/fetcher', job('alpha_dwh', 'alpha'));
    expect(allowed.status).toBe(202);
    expect((await waitForJob({ get: (path: string) => as(alpha).get(path) } as never, allowed.body.jobId)).status).toBe('completed');
    const refused = await as(beta).post('/v1/fetcher', job('alpha_dwh', 'beta'));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('FET-1020');
    expect((await as(ADMIN).post('/v1/fetcher', job('alpha_dwh', 'beta'))).body.code).toBe('FET-1016');
    expect((await as(beta).post('/v1/fetcher', job('shared_dwh', 'beta'))).status).toBe(202);
  });
});
