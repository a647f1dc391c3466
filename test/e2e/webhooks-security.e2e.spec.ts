import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../src/engine/egress/egress-guard.js';
import { startCountingListener, type CountingListener } from '../../src/engine/egress/testing/counting-listener.js';
import { PolicyOverrideGuard } from '../../src/engine/egress/testing/policy-override-guard.js';
import { withBearer } from '../helpers/auth-routes.js';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { ownLogFile } from '../helpers/test-log-file.js';
import { eventually } from '../helpers/webhook-receiver.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const HOOKS = '/v1/management/webhooks';

describe('webhook routes: credentials, products, secrets', () => {
  const store = useTempDatabase('e2e_hooks_store');
  let fetcher: EmbeddedFetcher;
  let alpha: string;
  let beta: string;
  const log = ownLogFile();
  const as = (key: string) => withBearer(fetcher.http, key);

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: ADMIN,
      DATABASE_URL: store().url,
      ALLOW_PRIVATE_HOSTS: 'true',
      LOG_FILE: log.file,
      LOG_LEVEL: 'debug',
    });
    const issue = async (productName: string) =>
      (await as(ADMIN).post('/v1/management/api-keys', { productName, name: 'e2e' })).body.key as string;
    [alpha, beta] = await Promise.all([issue('alpha'), issue('beta')]);
  });
  afterAll(async () => {
    await fetcher?.close();
    log.remove();
  });

  it('answers 401 without a credential, 404 for another product’s webhook, and lets the operator see all', async () => {
    const created = await as(alpha).post(HOOKS, { url: 'http://127.0.0.1:9/a', events: ['job.completed'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const own = await as(beta).post(HOOKS, { url: 'http://127.0.0.1:9/b', events: ['job.failed'], description: 'beta' });
    expect(own.status).toBe(201);

    for (const [method, path] of [
      ['post', HOOKS],
      ['get', HOOKS],
      ['get', `${HOOKS}/${id}`],
      ['delete', `${HOOKS}/${id}`],
      ['post', `${HOOKS}/${id}/rotate-secret`],
      ['get', `${HOOKS}/${id}/deliveries`],
    ] as const) {
      const response = await fetcher.http[method](path);
      expect(response.status, `${method} ${path}`).toBe(401);
      const foreign = await as(beta)[method](path);
      if (path !== HOOKS) {
        expect(foreign.status, `${method} ${path} as beta`).toBe(404);
        expect(foreign.body.code).toBe('FET-1001');
      }
    }
    expect(
      (
        await as(alpha)
          .post(HOOKS, { url: 'http://127.0.0.1:9/a', events: ['job.completed'] })
          .set('X-Product-Name', 'beta')
      ).status,
    ).toBe(403);
    expect((await as(alpha).get(HOOKS).set('X-Product-Name', 'beta')).status).toBe(403);
    expect((await as(beta).get(HOOKS)).body.items.map((hook: { id: string }) => hook.id)).toEqual([own.body.id]);
    const all = await as(ADMIN).get(`${HOOKS}?limit=100`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((hook: { id: string }) => hook.id)).toEqual(expect.arrayContaining([id, own.body.id]));
    expect((await as(ADMIN).get(`${HOOKS}/${id}/deliveries`)).body).toEqual({ items: [], page: 1, limit: 10, total: 0 });
    expect((await as(alpha).get(`${HOOKS}/not-a-uuid`)).body.code).toBe('FET-0404');
    expect((await as(alpha).get(`${HOOKS}?sourse=x`)).status).toBe(400);
    expect((await as(alpha).get(`${HOOKS}/${id}/deliveries?limit=101`)).body.code).toBe('FET-0406');
    expect((await as(ADMIN).post(HOOKS, { url: 'http://127.0.0.1:9/a', events: ['job.completed'] })).body.code).toBe('FET-0403');
    expect((await as(ADMIN).delete(`${HOOKS}/${own.body.id}`)).status).toBe(204);
    expect((await as(beta).get(`${HOOKS}/${own.body.id}`)).status).toBe(404);
  });

  it('refuses bodies naming the field: bad url, unknown event, empty events, unknown member, long description', async () => {
    const cases: [object, string, string][] = [
      [{ url: 'ftp://example.com/x', events: ['job.completed'] }, 'url', 'FET-0001'],
      [{ url: 'http://user:pw@example.com/x', events: ['job.completed'] }, 'url', 'FET-0001'],
      [{ url: 'not a url', events: ['job.completed'] }, 'url', 'FET-0001'],
      [{ url: 'http://169.254.169.254/x', events: ['job.completed'] }, 'url', 'FET-0414'],
      [{ url: 'http://example.com/x', events: ['job.started'] }, 'events', 'FET-0001'],
      [{ url: 'http://example.com/x', events: [] }, 'events', 'FET-0001'],
      [{ url: 'http://example.com/x', events: ['job.failed', 'job.failed'] }, 'events', 'FET-0001'],
      [{ url: 'http://example.com/x', events: ['job.failed'], extra: 1 }, 'extra', 'FET-0001'],
      [{ url: 'http://example.com/x', events: ['job.failed'], description: 'x'.repeat(501) }, 'description', 'FET-0001'],
      [{ events: ['job.failed'] }, 'url', 'FET-0402'],
    ];
    for (const [body, field, code] of cases) {
      const response = await as(alpha).post(HOOKS, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code, JSON.stringify(body)).toBe(code);
      expect(Object.keys(response.body.fields ?? {}), JSON.stringify(body)).toContain(field);
    }
  });

  it('shows the secret only at creation and rotation, and never keeps it in clear in the store or the log', async () => {
    const created = await as(alpha).post(HOOKS, { url: 'http://127.0.0.1:9/s', events: ['job.completed', 'job.failed'] });
    const rotated = await as(alpha).post(`${HOOKS}/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const secrets = [created.body.secret as string, rotated.body.secret as string];
    const keys = secrets.map((secret) => secret.slice('whsec_'.length));
    const later = JSON.stringify([
      (await as(alpha).get(`${HOOKS}/${created.body.id}`)).body,
      (await as(alpha).get(HOOKS)).body,
      (await as(ADMIN).get(HOOKS)).body,
    ]);
    expect(later).not.toContain('secret');
    const dump = execFileSync('pg_dump', ['--data-only', store().url], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(dump).toContain(created.body.id);
    await fetcher.close();
    const logged = readFileSync(log.file, 'utf8');
    expect(logged).toContain(HOOKS);
    for (const text of [...secrets, ...keys]) {
      expect(dump).not.toContain(text);
      expect(logged).not.toContain(text);
    }
  });
});

describe('webhook egress', () => {
  const run = randomUUID().slice(0, 8);
  const name = `hooks-${run}.rebind.test`;
  let answers = ['93.184.216.34'];
  const source = useTempDatabase('e2e_hooks_egress');
  let refused: CountingListener;
  let fetcher: EmbeddedFetcher;

  beforeAll(async () => {
    await source().query('CREATE TABLE accounts (id int PRIMARY KEY); INSERT INTO accounts VALUES (1);');
    refused = await startCountingListener('127.0.0.2');
    // The source database on 127.0.0.1 is reachable; every other private address is refused.
    const guard = new PolicyOverrideGuard(['127.0.0.1'], async (host) => (host === name ? answers : []));
    fetcher = await startEmbeddedFetcher(
      { ALLOW_PRIVATE_HOSTS: 'false', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_MS: '100' },
      { overrides: [[EgressGuard, guard]] },
    );
    await registerPostgres(fetcher.http, source(), { configName: 'pg_source', product: 'egress' });
  });
  afterAll(async () => {
    await fetcher?.close();
    await refused?.close();
  });

  it('refuses a URL resolving to a refused address at registration', async () => {
    for (const url of [`http://127.0.0.2:${refused.port}/x`, 'http://localhost/x', 'http://[::1]/x', 'http://10.0.0.1/x']) {
      const response = await fetcher.http
        .post(HOOKS)
        .set('X-Product-Name', 'egress')
        .send({ url, events: ['job.completed'] });
      expect(response.status, url).toBe(400);
      expect(response.body.code).toBe('FET-0414');
      expect(Object.keys(response.body.fields)).toEqual(['url']);
    }
  });

  it('never connects when the name resolves to a refused address at delivery (DNS rebinding)', async () => {
    const created = await fetcher.http
      .post(HOOKS)
      .set('X-Product-Name', 'egress')
      .send({ url: `http://${name}:${refused.port}/x`, events: ['job.completed'] });
    expect(created.status).toBe(201);
    answers = ['127.0.0.2'];
    const job = await fetcher.http
      .post('/v1/fetcher')
      .send({ dataRequest: { mappedFields: { pg_source: { accounts: ['*'] } } }, metadata: { source: 'egress' } });
    expect((await waitForJob(fetcher.http, job.body.jobId)).status).toBe('completed');
    const attempts = async () => (await fetcher.http.get(`${HOOKS}/${created.body.id}/deliveries`)).body.items[0]?.attemptList.length ?? 0;
    await eventually(async () => (await attempts()) >= 2, 30_000, 'two refused attempts');
    const [delivery] = (await fetcher.http.get(`${HOOKS}/${created.body.id}/deliveries`)).body.items;
    expect(delivery.state).toBe('pending');
    expect(delivery.attemptList[0]).toMatchObject({ statusCode: null, latencyMs: null });
    expect(delivery.attemptList[0].error).toMatch(/^egress refused/);
    expect(refused.connections).toBe(0);
  });
});
