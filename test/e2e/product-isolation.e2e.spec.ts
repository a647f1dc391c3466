import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, withBearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const CONNECTIONS = '/v1/management/connections';

/**
 * Names live inside a product: to product beta, product alpha's connections are exactly as absent
 * as names and ids nobody registered, on every route that takes a name or an id, whatever state
 * alpha's connection is in. A job reads the very connection it resolved at submission.
 */
describe('connections of another product do not exist, by name or by id', () => {
  let alphaSource: TempDatabase;
  let betaSource: TempDatabase;
  let fetcher: EmbeddedFetcher;
  let alpha: string;
  let beta: string;
  const as = (key: string) => withBearer(fetcher.http, key);

  beforeAll(async () => {
    [alphaSource, betaSource] = await Promise.all([createTempDatabase('e2e_iso_alpha'), createTempDatabase('e2e_iso_beta')]);
    await alphaSource.query("CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (1, 'alpha-secret@x')");
    await betaSource.query("CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (7, 'beta@x')");
    fetcher = await startEmbeddedFetcher({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN, CONNECTION_TEST_TIMEOUT_MS: '20000' });
    const issue = async (productName: string) =>
      (await as(ADMIN).post('/v1/management/api-keys', { productName, name: 'e2e' })).body.key as string;
    [alpha, beta] = await Promise.all([issue('alpha'), issue('beta')]);
  });
  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([alphaSource?.drop(), betaSource?.drop()]);
  });

  const uniqueName = (prefix: string) => `${prefix}_${randomUUID().slice(0, 8)}`;
  const connectionBody = (configName: string, source: TempDatabase, port = source.port) =>
    pgConnectionBody({ host: source.host, port, name: source.name, user: source.user }, { configName, password: 'trust-auth-ignores-it' });
  const create = async (key: string, configName: string, source: TempDatabase, port?: number) => {
    const response = await as(key).post(CONNECTIONS, connectionBody(configName, source, port));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; configName: string };
  };
  const jobFor = (configName: string, source: string) => ({
    dataRequest: { mappedFields: { [configName]: { accounts: ['id', 'email'] } } },
    metadata: { source, correlationId: 'same-for-both' },
  });

  /** What a caller can tell apart: status, and the body with the probed name or id written as a placeholder. */
  const answer = (response: Response, probed: string) => ({
    status: response.status,
    body: JSON.parse(JSON.stringify(response.body).replaceAll(probed, '<probed>')) as unknown,
  });

  /** One of alpha's connections in each state that used to answer beta differently. */
  async function alphaConnections(): Promise<Record<string, { id: string; configName: string }>> {
    const healthy = await create(alpha, uniqueName('alpha_ok'), alphaSource);
    const cleared = await create(alpha, uniqueName('alpha_cleared'), alphaSource);
    // A new port without a password clears the stored one: the connection then answers FET-1024 to its owner.
    expect((await as(alpha).patch(`${CONNECTIONS}/${cleared.id}`, { port: alphaSource.port + 1 })).body.hasPassword).toBe(false);
    const unopenable = await create(alpha, uniqueName('alpha_keyless'), alphaSource);
    // Sealed under a key version this process does not have: its owner gets an error naming the variable to set.
    await fetcher.app.get(DataSource).query(`UPDATE connections SET encryption_key_version = '99' WHERE id = ?`, [unopenable.id]);
    return { healthy, cleared, unopenable };
  }

  it("answers beta's job for alpha's connection byte for byte as for a name that exists nowhere", async () => {
    const owned = await alphaConnections();
    const nowhere = uniqueName('nowhere');
    const absent = answer(await as(beta).post('/v1/fetcher', jobFor(nowhere, 'beta')), nowhere);
    expect(absent).toMatchObject({ status: 400, body: { code: 'FET-1020' } });
    for (const [state, connection] of Object.entries(owned)) {
      const probed = answer(await as(beta).post('/v1/fetcher', jobFor(connection.configName, 'beta')), connection.configName);
      expect(probed, state).toEqual(absent);
    }
    // The operator still learns who owns it.
    const operator = await as(ADMIN).post('/v1/fetcher', jobFor(owned.healthy.configName, 'beta'));
    expect(operator.status).toBe(400);
    expect(operator.body.code).toBe('FET-1016');
  });

  it("answers beta's validate-schema for alpha's connection as for a name that exists nowhere", async () => {
    const owned = await alphaConnections();
    const validate = (configName: string) =>
      as(beta).post(`${CONNECTIONS}/validate-schema`, { mappedFields: { [configName]: { accounts: ['id'] } } });
    const nowhere = uniqueName('nowhere');
    const absent = answer(await validate(nowhere), nowhere);
    expect(absent).toMatchObject({ status: 422, body: { code: 'FET-1060' } });
    for (const [state, connection] of Object.entries(owned)) {
      expect(answer(await validate(connection.configName), connection.configName), state).toEqual(absent);
    }
  });

  it.each([
    ['GET', (id: string) => as(beta).get(`${CONNECTIONS}/${id}`)],
    ['PATCH', (id: string) => as(beta).patch(`${CONNECTIONS}/${id}`, { port: 1 })],
    ['DELETE', (id: string) => as(beta).delete(`${CONNECTIONS}/${id}`)],
    ['test', (id: string) => as(beta).post(`${CONNECTIONS}/${id}/test`)],
    ['schema', (id: string) => as(beta).get(`${CONNECTIONS}/${id}/schema`)],
  ])("answers beta's %s of alpha's connection as of an id that exists nowhere", async (_route, call) => {
    const owned = await alphaConnections();
    const nowhere = randomUUID();
    const absent = answer(await call(nowhere), nowhere);
    expect(absent).toMatchObject({ status: 404, body: { code: 'FET-1001' } });
    for (const [state, connection] of Object.entries(owned)) {
      expect(answer(await call(connection.id), connection.id), state).toEqual(absent);
    }
    expect((await as(alpha).get(`${CONNECTIONS}/${owned.healthy.id}`)).body).toMatchObject({ port: alphaSource.port, hasPassword: true });
  });

  it("lets beta create, use and see a connection named like alpha's, each product reading its own", async () => {
    const name = uniqueName('same_name');
    const alphaOwn = await create(alpha, name, alphaSource);
    const betaOwn = await create(beta, name, betaSource);
    expect(betaOwn.id).not.toBe(alphaOwn.id);
    const again = await as(beta).post(CONNECTIONS, connectionBody(name, betaSource));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('FET-1002');
    expect(again.body.fields).toEqual({ configName: `product 'beta' already has a connection named '${name}'` });

    const submitted = await as(beta).post('/v1/fetcher', jobFor(name, 'beta'));
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const done = await waitForJob({ get: (path: string) => as(beta).get(path) } as never, submitted.body.jobId);
    expect(done.status).toBe('completed');
    expect(done.result?.rowCount).toBe(1);
    const download = await as(beta).get(`/v1/fetcher/${submitted.body.jobId}/result`);
    expect(download.status).toBe(200);
    expect(JSON.stringify(download.body)).toContain('beta@x');
    expect(JSON.stringify(download.body)).not.toContain('alpha-secret');

    // The operator names the product where a name is ambiguous across products.
    const validate = (product?: string) => {
      const call = fetcher.http.post(`${CONNECTIONS}/validate-schema`).set(bearer(ADMIN));
      return (product ? call.set('X-Product-Name', product) : call).send({ mappedFields: { [name]: { accounts: ['email'] } } });
    };
    const ambiguous = await validate();
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.code).toBe('FET-0403');
    expect((await validate('alpha')).status).toBe(200);
  });

  describe('a delete and a rename while the submission tests the connection', () => {
    let stalling: TcpProxy;
    beforeAll(async () => {
      stalling = await startTcpProxy(betaSource.port, betaSource.host);
    });
    afterAll(async () => stalling?.close());

    it("never lets beta's job read the connection alpha renamed to the name beta's job used", async () => {
      const name = uniqueName('race');
      const betaOwn = await create(beta, name, betaSource, stalling.port);
      const alphaOwn = await create(alpha, uniqueName('alpha_secret'), alphaSource);
      const testsBefore = stalling.total;
      stalling.stall();
      const submitting = as(beta)
        .post('/v1/fetcher', jobFor(name, 'beta'))
        .then((response) => response);
      // The connection test reached the server, which now holds it: the job is not recorded yet.
      await expect.poll(() => stalling.total, { timeout: 10_000 }).toBeGreaterThan(testsBefore);

      expect((await as(beta).delete(`${CONNECTIONS}/${betaOwn.id}`)).status).toBe(204);
      const renamed = await as(alpha).patch(`${CONNECTIONS}/${alphaOwn.id}`, { configName: name });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      stalling.resume();

      const submitted = await submitting;
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
      const failed = await waitForJob({ get: (path: string) => as(beta).get(path) } as never, submitted.body.jobId);
      expect(failed.status).toBe('failed');
      expect(failed.error?.code).toBe('FET-1020');
      expect(failed.error?.message).toContain(`Connection '${name}' was deleted, or no longer belongs to the job's product`);
      expect(failed.result).toBeUndefined();
      // Alpha's connection under that name still serves alpha.
      const alphaJob = await as(alpha).post('/v1/fetcher', jobFor(name, 'alpha'));
      expect(alphaJob.status).toBe(202);
      expect((await waitForJob({ get: (path: string) => as(alpha).get(path) } as never, alphaJob.body.jobId)).status).toBe('completed');
    });
  });
});
