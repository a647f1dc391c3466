import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, type QueryDeepPartialEntity } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_ENTITY, type JobRecord } from '../../src/job/job.entity.js';
import { JobRepository, type CompletedResult } from '../../src/job/job.repository.js';
import { JobStatus } from '../../src/job/job-status.js';
import { completedEvent, failedEvent } from '../../src/job/terminal-events.js';
import { bearer } from '../helpers/auth-routes.js';
import { startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';
import { pendingJobRecord } from '../helpers/job-records.js';

const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const WORKER = 'job-list-e2e';
const STATUSES = [JobStatus.Pending, JobStatus.Processing, JobStatus.Completed, JobStatus.Failed];
const DAY_MS = 24 * 60 * 60 * 1000;
const MARCH_1 = Date.UTC(2025, 2, 1);

interface Known {
  readonly id: string;
  readonly product: string;
  readonly status: JobStatus;
  readonly createdAt: Date;
}
interface Page {
  items: Array<Record<string, unknown> & { id: string; status: string; source: string }>;
  page: number;
  limit: number;
  total: number;
}

/** Seeded creation times: a day apart per three jobs, three of them at the very same instant, one in the last millisecond of its day. */
function createdAtOf(index: number): Date {
  if (index >= 9 && index <= 11) return new Date(Date.UTC(2025, 2, 4, 12));
  if (index === 5) return new Date(MARCH_1 + 2 * DAY_MS - 1);
  return new Date(MARCH_1 + Math.floor(index / 3) * DAY_MS + (index % 3) * 3_600_000);
}

/**
 * GET /v1/fetcher over 25 jobs of two products on each job store: 23 written through the app's own
 * JobRepository (chosen creation times, statuses moved by its transitions) and one real job per
 * product submitted and run through the API.
 */
describe.each(['sqlite', 'postgres'] as const)('GET /v1/fetcher (job store: %s)', (kind) => {
  const suffix = randomBytes(4).toString('hex');
  const alpha = `alpha_${suffix}`;
  const beta = `beta_${suffix}`;
  const known: Known[] = [];
  const keys: Record<string, string> = {};
  let source: TempDatabase;
  let store: TempDatabase | undefined;
  let fetcher: EmbeddedFetcher;

  const get = (path: string, key?: string) => (key === undefined ? fetcher.http.get(path) : fetcher.http.get(path).set(bearer(key)));
  const list = async (query: string, key = ADMIN): Promise<Page> => {
    const response = await get(`/v1/fetcher${query}`, key);
    expect(response.status, `${query}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body as Page;
  };
  /** Every page of a query; checks that `total` holds on each and that no id comes twice. */
  const walk = async (query: string, key = ADMIN, limit = 4): Promise<string[]> => {
    const ids: string[] = [];
    const first = await list(`?${query}&limit=${limit}&page=1`, key);
    for (let page = 1; ; page += 1) {
      const body = page === 1 ? first : await list(`?${query}&limit=${limit}&page=${page}`, key);
      expect(body.total).toBe(first.total);
      if (body.items.length === 0) break;
      expect(body.items.length).toBeLessThanOrEqual(limit);
      ids.push(...body.items.map((item) => item.id));
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(first.total);
    return ids;
  };
  const expected = (match: (job: Known) => boolean, order: 'asc' | 'desc' = 'desc') => {
    const sign = order === 'asc' ? 1 : -1;
    return known
      .filter(match)
      .sort((a, b) => sign * (a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)))
      .map((job) => job.id);
  };
  const inMarch = (from: number, to: number) => (job: Known) =>
    job.createdAt.getTime() >= Date.UTC(2025, 2, from) && job.createdAt.getTime() < Date.UTC(2025, 2, to + 1);

  beforeAll(async () => {
    source = await createTempDatabase('e2e_job_list_src');
    await source.query("CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (1, 'a@x'), (2, 'b@x')");
    store = kind === 'postgres' ? await createTempDatabase('e2e_job_list_store') : undefined;
    fetcher = await startEmbeddedFetcher({
      AUTH_MODE: 'apikey',
      AUTH_ADMIN_KEYS: ADMIN,
      // The seeded pending and processing jobs must stay as seeded: no recovery sweep re-queues them mid-test.
      JOB_RECOVERY_INTERVAL_MS: '3600000',
      ...(store ? { DATABASE_URL: store.url } : {}),
    });
    for (const product of [alpha, beta]) {
      const key = await fetcher.http
        .post('/v1/management/api-keys')
        .set(bearer(ADMIN))
        .send({ productName: product, name: 'job list e2e' });
      expect(key.status).toBe(201);
      keys[product] = key.body.key as string;
    }
    await Promise.all([alpha, beta].map((product) => submitReal(product)));
    await seed();
  });
  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([source?.drop(), store?.drop()]);
  });

  async function submitReal(product: string): Promise<void> {
    const configName = `pg_${product}`;
    const connection = await fetcher.http
      .post('/v1/management/connections')
      .set(bearer(keys[product]))
      .send(pgConnectionBody(source, { configName, password: 'trust-auth-ignores-it' }));
    expect(connection.status).toBe(201);
    const body = {
      dataRequest: { mappedFields: { [configName]: { accounts: ['id', 'email'] } } },
      metadata: { source: product.toUpperCase(), run: randomUUID() },
    };
    const submitted = await fetcher.http.post('/v1/fetcher').set(bearer(keys[product])).send(body);
    expect(submitted.status).toBe(202);
    const done = await waitForJob({ get: (path: string) => get(path, keys[product]) } as never, submitted.body.jobId);
    expect(done.status).toBe('completed');
    known.push({ id: done.id, product, status: JobStatus.Completed, createdAt: new Date(submitted.body.createdAt) });
  }

  async function seed(): Promise<void> {
    const jobs = fetcher.app.get(JobRepository);
    const rows = fetcher.app.get(DataSource).getRepository<JobRecord>(JOB_ENTITY);
    for (let index = 0; index < 23; index += 1) {
      const product = index % 2 === 0 ? alpha : beta;
      const status = STATUSES[Math.floor(index / 2) % 4];
      const job = seededJob(product, createdAtOf(index), index);
      expect(await jobs.insertPending(job)).toBe(true);
      if (status !== JobStatus.Pending && status !== JobStatus.Failed)
        expect(await jobs.claim(job.id, WORKER, 3_600_000)).toMatchObject({ id: job.id, status: JobStatus.Processing });
      if (status === JobStatus.Completed) {
        const result = seededResult(job, index);
        expect(await jobs.complete(job.id, { workerId: WORKER, attempt: 1 }, result, completedEvent(job, result, 5, new Date()))).toBe(
          true,
        );
      }
      if (status === JobStatus.Failed) {
        const error = {
          code: 'FET-1060',
          message: `job ${index} failed`,
          details: [{ type: 'field_not_found', datasource: 'pg_seed', table: 'accounts', field: 'emial' }],
        };
        expect(await jobs.fail(job.id, error, failedEvent(job, error))).toBeInstanceOf(Date);
      }
      // Written by other parts of the service (worker progress, result deletion): set directly here.
      if (status === JobStatus.Processing && index !== 3) {
        const updatedAt = `2025-03-0${1 + (index % 8)}T10:00:00.000Z`;
        const progress = {
          rowsRead: 100 * index,
          bytesWritten: 1000 * index,
          startedAt: '2025-03-01T00:00:00.000Z',
          updatedAt,
          tables: {},
        };
        await rows.update({ id: job.id }, { progress } as QueryDeepPartialEntity<JobRecord>);
      }
      if (index === 4) await rows.update({ id: job.id }, { resultDeleteRequestedAt: new Date() });
      if (index === 13) await rows.update({ id: job.id }, { resultDeleteRequestedAt: new Date(), resultDeletedAt: new Date() });
      known.push({ id: job.id, product, status, createdAt: job.createdAt });
    }
  }

  it('answers 401 without a credential', async () => {
    const response = await get('/v1/fetcher');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('FET-0010');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it("lets the operator see all 25 jobs, newest first, in the connection list's envelope", async () => {
    const body = await list('');
    expect(Object.keys(body).sort()).toEqual(['items', 'limit', 'page', 'total']);
    expect(body).toMatchObject({ page: 1, limit: 10, total: 25 });
    expect(body.items.map((item) => item.id)).toEqual(expected(() => true).slice(0, 10));
  });

  it('pages across every job without duplicates or omissions, both ways, ties broken by id', async () => {
    for (const limit of [4, 7, 10, 25]) expect(await walk('', ADMIN, limit)).toEqual(expected(() => true));
    expect(await walk('sortOrder=asc', ADMIN, 6)).toEqual(expected(() => true, 'asc'));
    expect(await walk('sortOrder=DESC', ADMIN, 6)).toEqual(expected(() => true, 'desc'));
    const beyond = await list('?page=4&limit=10');
    expect(beyond).toEqual({ items: [], page: 4, limit: 10, total: 25 });
    expect((await list('?limit=100')).items).toHaveLength(25);
  });

  it("never shows a product credential the other product's jobs; total counts only its own", async () => {
    for (const [product, other] of [
      [alpha, beta],
      [beta, alpha],
    ]) {
      const ids = await walk('', keys[product], 5);
      expect(ids).toEqual(expected((job) => job.product === product));
      expect(ids.some((id) => known.find((job) => job.id === id)?.product === other)).toBe(false);
      expect(await walk('sortOrder=asc', keys[product], 3)).toEqual(expected((job) => job.product === product, 'asc'));
    }
    expect((await list('?limit=1', keys[alpha])).total).toBe(13);
    expect((await list('?limit=1', keys[beta])).total).toBe(12);
  });

  it('filters on source, trimmed and lower-cased; another product or an unknown one is an empty page, alike', async () => {
    expect(await walk(`source=${encodeURIComponent(` ${alpha.toUpperCase()} `)}`)).toEqual(expected((job) => job.product === alpha));
    expect(await walk(`source=${beta}`)).toEqual(expected((job) => job.product === beta));
    expect(await walk(`source=${alpha}`, keys[alpha])).toEqual(expected((job) => job.product === alpha));
    const foreign = await list(`?source=${beta}`, keys[alpha]);
    const unknown = await list(`?source=nobody_${suffix}`, keys[alpha]);
    expect(foreign).toEqual({ items: [], page: 1, limit: 10, total: 0 });
    expect(unknown).toEqual(foreign);
    expect(await list(`?source=${beta}&status=completed`, keys[alpha])).toEqual(foreign);
  });

  it('filters on each status alone', async () => {
    for (const status of STATUSES) {
      const ids = await walk(`status=${status}`);
      expect(ids, status).toEqual(expected((job) => job.status === status));
      expect(ids.length, status).toBeGreaterThan(0);
    }
    expect(await walk('status=failed', keys[beta])).toEqual(expected((job) => job.status === JobStatus.Failed && job.product === beta));
  });

  it('filters on startDate and endDate, endDate inclusive of its whole day', async () => {
    expect(await walk('startDate=2025-03-05')).toEqual(expected((job) => job.createdAt.getTime() >= Date.UTC(2025, 2, 5)));
    // Job 5 was created in the last millisecond of March 2.
    const untilMarch2 = await walk('endDate=2025-03-02');
    expect(untilMarch2).toEqual(expected(inMarch(1, 2)));
    expect(untilMarch2).toContain(known.find((job) => job.createdAt.getTime() === Date.UTC(2025, 2, 3) - 1)?.id);
    expect(await walk('startDate=2025-03-04&endDate=2025-03-04')).toEqual(expected(inMarch(4, 4)));
    expect(await walk('startDate=2025-03-02&endDate=2025-03-06&sortOrder=asc', ADMIN, 3)).toEqual(expected(inMarch(2, 6), 'asc'));
    expect((await list('?startDate=2024-01-01&endDate=2024-12-31')).total).toBe(0);
  });

  it('combines every filter with paging and sort order', async () => {
    const match = (job: Known) => job.product === alpha && job.status === JobStatus.Completed && inMarch(1, 31)(job);
    const query = `source=${alpha}&status=completed&startDate=2025-03-01&endDate=2025-03-31`;
    expect(await walk(`${query}&sortOrder=asc`, ADMIN, 1)).toEqual(expected(match, 'asc'));
    expect(await walk(query, keys[alpha], 2)).toEqual(expected(match));
    expect(expected(match).length).toBeGreaterThan(1);
    const beforeMarch5 = (job: Known) => job.product === beta && job.createdAt.getTime() < Date.UTC(2025, 2, 5);
    expect(await walk('endDate=2025-03-04&sortOrder=asc', keys[beta], 2)).toEqual(expected(beforeMarch5, 'asc'));
  });

  it('returns summaries: counts instead of mappedFields, the result, the error, progress and deletion', async () => {
    const items = new Map((await list('?limit=100')).items.map((item) => [item.id, item]));
    const seeded = (index: number) => items.get(known[2 + index].id) as Record<string, unknown>;
    const pending = seeded(0);
    expect(pending).toEqual({
      id: known[2].id,
      status: 'pending',
      source: alpha,
      createdAt: createdAtOf(0).toISOString(),
      counts: { datasources: 2, tables: 3, fields: 4 },
    });
    expect(seeded(2)).toMatchObject({
      status: 'processing',
      startedAt: expect.any(String),
      progress: { rowsRead: 200, bytesWritten: 2000, updatedAt: '2025-03-03T10:00:00.000Z' },
    });
    expect(seeded(3)).not.toHaveProperty('progress');
    const completed = seeded(5);
    expect(completed).toMatchObject({
      status: 'completed',
      completedAt: expect.any(String),
      result: { sizeBytes: 1005, rowCount: 5, sha256: 'c'.repeat(64) },
    });
    expect(Object.keys(completed.result as object).sort()).toEqual(['rowCount', 'sha256', 'sizeBytes']);
    expect(completed).not.toHaveProperty('resultDeleted');
    expect(seeded(4)).toMatchObject({ status: 'completed', resultDeleted: true });
    expect(seeded(13)).toMatchObject({ status: 'completed', resultDeleted: true });
    expect(seeded(6)).toMatchObject({ status: 'failed', error: { code: 'FET-1060', message: 'job 6 failed' } });
    expect(seeded(6).error).toEqual({ code: 'FET-1060', message: 'job 6 failed' });
    for (const item of items.values()) {
      for (const hidden of ['mappedFields', 'metadata', 'filters', 'requestHash', 'resultPath', 'resultHmac', 'productName'])
        expect(item).not.toHaveProperty(hidden);
    }
    const real = items.get(known[0].id) as Record<string, unknown>;
    expect(real).toMatchObject({
      status: 'completed',
      source: known[0].product,
      counts: { datasources: 1, tables: 1, fields: 2 },
      result: { rowCount: 2 },
    });
  });

  it.each([
    ['an unknown parameter', '?sourse=x', 'FET-0405', ['sourse']],
    ['a repeated parameter', '?status=pending&status=failed', 'FET-0405', ['status']],
    ['a nested parameter', '?status[eq]=pending', 'FET-0405', undefined],
    ['a bad status', '?status=done', 'FET-0405', ['status']],
    ['an empty source', '?source=%20', 'FET-0405', ['source']],
    ['page 0', '?page=0', 'FET-0405', ['page']],
    ['a page that is no integer', '?page=two', 'FET-0405', ['page']],
    ['a limit of 0', '?limit=0', 'FET-0405', ['limit']],
    ['a limit above 100', '?limit=101', 'FET-0406', ['limit']],
    ['a bad sortOrder', '?sortOrder=sideways', 'FET-0407', ['sortOrder']],
    ['a bad startDate', '?startDate=2025-02-30', 'FET-0408', ['startDate']],
    ['a bad endDate', '?endDate=03/01/2025', 'FET-0408', ['endDate']],
    ['endDate before startDate', '?startDate=2025-03-02&endDate=2025-03-01', 'FET-0409', ['endDate']],
  ])('refuses %s with 400', async (_, query, code, fields) => {
    for (const key of [ADMIN, keys[alpha]]) {
      const response = await get(`/v1/fetcher${query}`, key);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe(code);
      if (fields) expect(Object.keys(response.body.fields ?? {})).toEqual(fields);
      else expect(Object.keys(response.body.fields ?? {})).toHaveLength(1);
    }
  });
});

function seededJob(product: string, createdAt: Date, index: number): JobRecord {
  const mappedFields = { pg_seed: { accounts: ['id', 'email'], 'public.invoices': ['*'] }, pg_other: { orders: ['id'] } };
  const metadata = { source: product, seeded: index };
  // Now, not `createdAt`: a pending job untouched for a lease period would be re-queued.
  const fields = { id: randomUUID(), productName: product, metadata, mappedFields, createdAt, updatedAt: new Date() };
  return pendingJobRecord(fields, randomBytes(32).toString('hex'));
}

function seededResult(job: JobRecord, index: number): CompletedResult {
  return {
    resultPath: `external-data/${job.id}.json`,
    resultHmac: 'a'.repeat(64),
    resultKeyVersion: '1',
    resultSha256: 'c'.repeat(64),
    resultSizeBytes: 1000 + index,
    resultRowCount: index,
    resultRowCounts: { pg_seed: { accounts: index } },
  };
}
