import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_RESOLVER } from '../../src/datasource/engine.provider.js';
import { bearer, documentedV1Routes, OPEN_ROUTES } from '../helpers/auth-routes.js';
import { registerPostgres, startEmbeddedFetcher, TEST_MASTER_KEY, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { TEST_PG, useTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import {
  anyBody,
  FUZZ_PASSWORD,
  headerSets,
  nearValid,
  pathParam,
  PRODUCT,
  queryString,
  SOURCE,
  validApiKey,
  validConnection,
  validJob,
  validSchemaCheck,
} from './fuzz/fuzz-arbitraries.js';

/**
 * Property-based fuzzing of every route: generated bodies, query strings, path parameters and
 * headers, sent to the real app. Whatever arrives, the answer is below 500, a 4xx is a FET
 * envelope, nothing carries a stack trace, a file path or a secret, and afterwards the process
 * is healthy, every job has ended and the source table is unchanged.
 *
 * Deterministic by default; FUZZ_SEED=<n> replays or explores another seed. A failure names the
 * seed (and fast-check's path) to replay it with.
 */
const SEED = process.env.FUZZ_SEED === undefined ? 20_260_713 : Number(process.env.FUZZ_SEED);
if (!Number.isSafeInteger(SEED)) throw new Error(`FUZZ_SEED must be an integer, got '${process.env.FUZZ_SEED}'`);

const CONNECTION_PASSWORD = 'not-needed-with-trust-auth';
const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const SECRETS = [TEST_MASTER_KEY, CONNECTION_PASSWORD, FUZZ_PASSWORD, ADMIN_KEY, ...(TEST_PG.password ? [TEST_PG.password] : [])];
/** What an answer must never show: stack frames, and paths of this checkout or of node_modules. */
const LEAKS: ReadonlyArray<readonly [string, RegExp]> = [
  ['a stack frame', /\n\s*at |\bat (?:async )?[\w$.<>[\]]+ \(|\bat (?:file:\/\/|node:)/],
  ['a file path', new RegExp(`node_modules|file://|${RegExp.escape(process.cwd())}|[\\w-]+\\.[cm]?[jt]s:\\d+`)],
];
/** Fewer runs and a shorter budget when asked, e.g. FUZZ_RUNS=0.25 on a slow machine. */
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));
/** Each property takes a few seconds; the margin is for a loaded machine, and for shrinking a failure. */
const PROPERTY_TIMEOUT = { timeout: 180_000 };

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Route {
  readonly method: Method;
  /** Swagger's spelling, `{id}` for the path parameter. */
  readonly template: string;
}
interface FuzzRequest {
  readonly method: Method;
  readonly path: string;
  readonly headers?: ReadonlyArray<readonly [string, string | string[]]>;
  readonly body?: string;
}

const stats = { requests: 0, byStatus: new Map<number, number>(), started: 0 };

// ---------------------------------------------------------------------------------------------
// Sending and checking

async function send(fetcher: EmbeddedFetcher, request: FuzzRequest): Promise<Response> {
  let call = fetcher.http[request.method](request.path).timeout({ response: 20_000, deadline: 30_000 });
  for (const [name, value] of request.headers ?? []) call = call.set(name, value as string);
  const hasType = (request.headers ?? []).some(([name]) => name.toLowerCase() === 'content-type');
  if (request.body !== undefined) {
    if (!hasType) call = call.set('Content-Type', 'application/json');
    call = call.send(request.body);
  }
  // A refusal of the request itself must surface as a failed property, not a transport error.
  const response = await call.ok(() => true);
  stats.requests += 1;
  stats.byStatus.set(response.status, (stats.byStatus.get(response.status) ?? 0) + 1);
  return response;
}

function describeRequest(request: FuzzRequest): string {
  const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…(${text.length} chars)` : text);
  const headers = (request.headers ?? []).map(([name, value]) => `${name}: ${cut(JSON.stringify(value), 80)}`).join(', ');
  return `${request.method.toUpperCase()} ${cut(request.path, 200)}${headers ? ` [${headers}]` : ''}${request.body === undefined ? '' : ` body ${cut(request.body, 300)}`}`;
}

/** Throws, describing request and answer, when the answer breaks one of the suite's rules. */
function checkAnswer(request: FuzzRequest, response: Response, secrets: readonly string[]): void {
  const text = response.text ?? '';
  const sent = `${request.path} ${request.body ?? ''} ${JSON.stringify(request.headers ?? [])}`;
  const problems: string[] = [];
  if (response.status >= 500 || response.status < 100) problems.push(`status ${response.status}`);
  // An answer may echo a name it refuses; a leak is what the request did not carry itself.
  for (const [what, pattern] of LEAKS) if (pattern.test(text) && !pattern.test(sent)) problems.push(`${what} in the body`);
  for (const secret of secrets) if (text.includes(secret)) problems.push(`a secret (${secret.slice(0, 4)}…) in the body`);
  if (response.status >= 400) {
    let envelope: Record<string, unknown> | undefined;
    try {
      envelope = JSON.parse(text) as Record<string, unknown>;
    } catch {
      problems.push('a 4xx that is not JSON');
    }
    if (!String(response.headers['content-type']).startsWith('application/json'))
      problems.push(`content-type ${response.headers['content-type']}`);
    if (envelope) {
      if (typeof envelope.code !== 'string' || !/^FET-\d{4}$/.test(envelope.code)) problems.push('no FET code');
      if (typeof envelope.title !== 'string' || typeof envelope.message !== 'string') problems.push('no title or message');
    }
  }
  if (problems.length > 0)
    throw new Error(`${describeRequest(request)}\n→ ${response.status} ${text.slice(0, 600)}\nbroke: ${problems.join('; ')}`);
}

/** fast-check's report names the seed and path; this adds how to replay them from the shell. */
async function fuzz<T>(name: string, arbitrary: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => Promise<void>): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), { seed: SEED, numRuns });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `fuzz '${name}' failed with FUZZ_SEED=${SEED}; replay: FUZZ_SEED=${SEED} npx vitest run test/e2e/fuzz.e2e.spec.ts\n${message}`,
      { cause: error },
    );
  }
}

const pathOf = (route: Route, id: string) => route.template.replace(/\{[^}]+\}/g, id);

// ---------------------------------------------------------------------------------------------
// The app under test

interface Target {
  fetcher: EmbeddedFetcher;
  /** Ids of jobs and API keys created by accepted requests, for the path parameter fuzz. */
  created: string[];
  routes: Route[];
  /** Ids that exist: the source connection (never changed by the fuzz) and a victim (may be). */
  sourceId: string;
  victimId: string;
  checksum: () => Promise<string>;
}

const noDns = async (): Promise<string[]> => {
  throw Object.assign(new Error('fuzz: no DNS'), { code: 'ENOTFOUND' });
};

async function startTarget(source: TempDatabase, env: Record<string, string>, credential?: string): Promise<Target> {
  const fetcher = await startEmbeddedFetcher(
    {
      JOB_SUBMIT_RATE_LIMIT: '1000000',
      CONNECTION_TEST_PRINCIPAL_RATE_LIMIT: '1000000',
      CONNECTION_TEST_RATE_LIMIT: '10000',
      // Generated bad credentials would otherwise block the fuzz's one address for the rest of a run.
      AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
      // The fuzz sends hundreds of schema checks: past the limit they would all be the same 429.
      SCHEMA_DISCOVERY_PRINCIPAL_RATE_LIMIT: '1000000',
      ...env,
    },
    // Generated host names must not reach a real resolver (slow, and not ours to query).
    { overrides: [[ADDRESS_RESOLVER, noDns]] },
  );
  const auth = credential ? bearer(credential) : {};
  const asCaller = { post: (path: string) => fetcher.http.post(path).set(auth) } as unknown as EmbeddedFetcher['http'];
  const registered = await registerPostgres(asCaller, source, { configName: SOURCE, product: PRODUCT });
  // Never dialled: its name does not resolve, and the fuzz keeps it away from /test and /schema.
  const victim = await asCaller
    .post('/v1/management/connections')
    .set('X-Product-Name', PRODUCT)
    .send({ ...validConnection(0), configName: 'fz_victim', host: 'victim.fuzz.invalid' });
  if (victim.status !== 201) throw new Error(`victim connection: ${victim.status} ${victim.text}`);
  const v1 = await documentedV1Routes(fetcher.http);
  const routes: Route[] = [
    ...v1.map((route) => ({ method: route.method, template: route.documented })),
    ...OPEN_ROUTES.map((path) => ({ method: 'get' as const, template: path })),
  ];
  const checksum = async () =>
    JSON.stringify(
      (await source.query("SELECT count(*)::int AS n, md5(string_agg(id::text || ':' || label, ',' ORDER BY id)) AS sum FROM tiny"))
        .rows[0],
    );
  return { fetcher, routes, created: [], sourceId: registered.id, victimId: victim.body.id as string, checksum };
}

/**
 * The id a generated request may really use: /test and /schema dial the database, so they get
 * the source connection, never the victim; anything that may change a connection gets the
 * victim, never the source.
 */
function usableId(target: Target, route: Route, id: string): string {
  const dials = route.template.endsWith('/test') || route.template.endsWith('/schema');
  if (dials && id === target.victimId) return target.sourceId;
  if (!dials && route.method !== 'get' && id === target.sourceId) return target.victimId;
  return id;
}

/** Jobs the fuzz created must all end: nothing left pending or processing. */
async function expectQueueDrained(fetcher: EmbeddedFetcher): Promise<void> {
  const store = fetcher.app.get(DataSource);
  const deadline = Date.now() + 20_000;
  let active = Number.NaN;
  do {
    [{ active }] = (await store.query("SELECT count(*) AS active FROM jobs WHERE status IN ('pending', 'processing')")) as Array<{
      active: number;
    }>;
    if (Number(active) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  expect(Number(active), 'jobs still pending or processing after the fuzz').toBe(0);
}

const source = useTempDatabase('e2e_fuzz');
beforeAll(async () => {
  await source().query(
    "CREATE TABLE tiny (id int PRIMARY KEY, label text NOT NULL); INSERT INTO tiny VALUES (1, 'a1'), (2, 'a2'), (3, 'b3')",
  );
  stats.started = Date.now();
});
afterAll(async () => {
  const seconds = ((Date.now() - stats.started) / 1000).toFixed(1);
  const statuses = [...stats.byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  console.log(`[fuzz] seed ${SEED}: ${stats.requests} requests in ${seconds} s (${statuses})`);
});

describe.each([
  { mode: 'none', scale: 1 },
  { mode: 'apikey', scale: 0.2 },
])('fuzz with AUTH_MODE=$mode', ({ mode, scale }) => {
  let target: Target;
  let before: string;
  let credential: string | undefined;
  /** A product's own key (apikey mode), among the generated credentials. */
  let productKey: string | undefined;
  let secrets: readonly string[];
  const n = (count: number) => Math.max(1, Math.round(runs(count) * scale));
  /** Authenticated as the operator unless the generated headers say otherwise. */
  const base = () => (credential ? [['Authorization', `Bearer ${credential}`] as const] : []);
  const sendChecked = async (request: FuzzRequest) => {
    const response = await send(target.fetcher, request);
    checkAnswer(request, response, secrets);
    const id: unknown = response.body?.jobId ?? (request.path === '/v1/management/api-keys' ? response.body?.id : undefined);
    if (response.status < 300 && typeof id === 'string' && target.created.length < 200) target.created.push(id);
  };

  beforeAll(async () => {
    credential = mode === 'apikey' ? ADMIN_KEY : undefined;
    target = await startTarget(source(), mode === 'apikey' ? { AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY } : {}, credential);
    if (credential) {
      const issued = await target.fetcher.http
        .post('/v1/management/api-keys')
        .set(bearer(credential))
        .send({ productName: PRODUCT, name: 'fuzz product key' });
      expect(issued.status).toBe(201);
      productKey = issued.body.key as string;
    }
    // The product key is handed out by the API on purpose; the answers must never show the others,
    // nor where the app keeps its data.
    secrets = [...SECRETS, target.fetcher.dataDir];
    before = await target.checksum();
  });
  afterAll(async () => target?.fetcher.close());

  it('documents routes to fuzz', () => {
    // 12 connection and job operations and 6 open routes; the API key routes exist with apikey only.
    expect(target.routes.length).toBeGreaterThanOrEqual(mode === 'apikey' ? 21 : 18);
  });

  it('answers any body on any route with < 500 and a FET envelope', PROPERTY_TIMEOUT, async () => {
    const arbitrary = fc.record({ route: fc.constantFrom(...target.routes), body: anyBody, id: pathParam([target.victimId]) });
    await fuzz('any body', arbitrary, n(800), async ({ route, body, id }) => {
      await sendChecked({
        method: route.method,
        path: pathOf(route, usableId(target, route, id)),
        headers: [...base(), ['X-Product-Name', PRODUCT]],
        body,
      });
    });
  });

  it('answers near-valid job submissions without 5xx (valid ones become small jobs on a 3-row table)', PROPERTY_TIMEOUT, async () => {
    await fuzz('near-valid job', nearValid(validJob), n(500), async (body) => {
      await sendChecked({ method: 'post', path: '/v1/fetcher', headers: base(), body });
    });
  });

  it('answers near-valid connection, schema-check and API key bodies without 5xx', PROPERTY_TIMEOUT, async () => {
    const arbitrary = fc.oneof(
      nearValid(validConnection).map((body) => ({ method: 'post' as const, path: '/v1/management/connections', body })),
      nearValid(validConnection).map((body) => ({ method: 'patch' as const, path: `/v1/management/connections/${target.victimId}`, body })),
      nearValid(validSchemaCheck).map((body) => ({ method: 'post' as const, path: '/v1/management/connections/validate-schema', body })),
      nearValid(validApiKey).map((body) => ({ method: 'post' as const, path: '/v1/management/api-keys', body })),
    );
    await fuzz('near-valid management body', arbitrary, n(350), async ({ method, path, body }) => {
      await sendChecked({ method, path, headers: [...base(), ['X-Product-Name', PRODUCT]], body });
    });
  });

  it('answers any query string on any route with < 500 and a FET envelope', PROPERTY_TIMEOUT, async () => {
    const listRoutes = target.routes.filter((route) => route.method === 'get');
    const arbitrary = fc.record({
      route: fc.constantFrom(...listRoutes, ...listRoutes.filter((route) => !route.template.includes('{'))),
      query: queryString,
    });
    await fuzz('query string', arbitrary, n(400), async ({ route, query }) => {
      await sendChecked({
        method: route.method,
        path: `${pathOf(route, usableId(target, route, target.victimId))}?${query}`,
        headers: base(),
      });
    });
  });

  it('answers any path parameter with < 500 and a FET envelope', PROPERTY_TIMEOUT, async () => {
    const withId = target.routes.filter((route) => route.template.includes('{'));
    // The source connection is only read, tested and discovered; the victim may be changed or deleted.
    const arbitrary = fc.record({ route: fc.constantFrom(...withId), id: pathParam([target.victimId, target.sourceId], target.created) });
    await fuzz('path parameter', arbitrary, n(300), async ({ route, id }) => {
      await sendChecked({
        method: route.method,
        path: pathOf(route, usableId(target, route, id)),
        headers: base(),
        body: route.method === 'get' ? undefined : '{}',
      });
    });
  });

  it('answers any headers on any route with < 500 and a FET envelope', PROPERTY_TIMEOUT, async () => {
    const arbitrary = fc.record({
      route: fc.constantFrom(...target.routes),
      headers: headerSets([credential, productKey].filter((key): key is string => key !== undefined)),
      body: fc.oneof(fc.constant(undefined), nearValid(validJob)),
    });
    await fuzz('headers', arbitrary, n(400), async ({ route, headers, body }) => {
      const list: Array<readonly [string, string | string[]]> = [];
      if (headers.product !== undefined) list.push(['X-Product-Name', headers.product]);
      if (headers.authorization !== undefined) list.push(['Authorization', headers.authorization]);
      if (headers.contentType !== undefined) list.push(['Content-Type', headers.contentType]);
      if (headers.contentEncoding !== undefined) list.push(['Content-Encoding', headers.contentEncoding]);
      if (headers.accept !== undefined) list.push(['Accept', headers.accept]);
      if (headers.extraName !== undefined && headers.extraValue !== undefined) list.push([headers.extraName, headers.extraValue]);
      await sendChecked({
        method: route.method,
        path: pathOf(route, usableId(target, route, target.victimId)),
        headers: list,
        body: route.method === 'get' ? undefined : body,
      });
    });
  });

  it('is still healthy afterwards: /health 200, every job ended, the source table unchanged', async () => {
    const health = await target.fetcher.http.get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'healthy' });
    await expectQueueDrained(target.fetcher);
    expect(await target.checksum()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

it('sent at least 2,000 requests in all', () => {
  expect(stats.requests).toBeGreaterThanOrEqual(Math.min(2_000, runs(2_000)));
});
