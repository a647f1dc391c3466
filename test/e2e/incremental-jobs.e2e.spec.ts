import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFetcher, waitForJob, type EmbeddedFetcher, type JobView } from '../helpers/fetcher-app.js';
import { createTempDatabase, internalPostgresEnv, TEST_PG, type TempDatabase } from '../helpers/pg-database.js';

const PRODUCT = `incr_${randomBytes(3).toString('hex')}`;
const CURSOR = 'dataRequest.incremental.cursors.src.orders';

/** A job of stream `stream` over orders (cursor `id` unless told), as product PRODUCT. */
function streamJob(stream: string, incremental: Record<string, unknown> = {}, correlationId = 'c-1', fields = ['id', 'note']) {
  return {
    dataRequest: { mappedFields: { src: { orders: fields } }, incremental: { stream, cursors: { src: { orders: 'id' } }, ...incremental } },
    metadata: { source: PRODUCT, correlationId },
  };
}

/** Runs `job` to completion, expecting a new job (202). */
async function run(fetcher: EmbeddedFetcher, job: object): Promise<JobView> {
  const response = await fetcher.http.post('/v1/fetcher').send(job);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const done = await waitForJob(fetcher.http, response.body.jobId);
  expect(done.status, JSON.stringify(done.error)).toBe('completed');
  return done;
}

const rowsOf = async (fetcher: EmbeddedFetcher, job: JobView) =>
  ((await fetcher.http.get(`/v1/fetcher/${job.id}/result`)).body as { src: { orders: Array<{ id: number }> } }).src.orders.map(
    (row) => row.id,
  );

/**
 * Jobs of incremental streams through HTTP, on a PostgreSQL job store and a PostgreSQL source
 * (AUTH_MODE=none: the operator names the product with `?source=`): the refusals at submission,
 * one active job per stream, and the marks surviving a restart of the app.
 */
describe('incremental jobs through HTTP', () => {
  let source: TempDatabase;
  let store: TempDatabase;
  let dataDir: string;
  let fetcher: EmbeddedFetcher;
  const env = () => ({ DATABASE_URL: store.url, ...internalPostgresEnv('src', source) });
  const streamPath = (name: string, suffix = '') => `/v1/fetcher/streams/${encodeURIComponent(name)}${suffix}?source=${PRODUCT}`;

  beforeAll(async () => {
    source = await createTempDatabase('e2e_incremental_source');
    store = await createTempDatabase('e2e_incremental_store');
    await source.query(`
      CREATE TABLE orders (id bigint PRIMARY KEY, note text NOT NULL, score float8, placed_at timestamptz NOT NULL DEFAULT now());
      INSERT INTO orders (id, note, score) VALUES (1, 'a', 0.5), (2, 'b', 1.5), (3, 'c', 2.5);`);
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-incremental-'));
    fetcher = await startEmbeddedFetcher(env(), { dataDir });
  }, 60_000);
  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([source?.drop(), store?.drop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    [
      'a cursor on a text column',
      streamJob('refused', { cursors: { src: { orders: 'note' } } }),
      CURSOR,
      /'note' \(text\) cannot be a cursor/,
    ],
    [
      'a cursor on a float column',
      streamJob('refused', { cursors: { src: { orders: 'score' } } }),
      CURSOR,
      /'score' \(double precision\) cannot be/,
    ],
    [
      'a cursor not in the table',
      streamJob('refused', { cursors: { src: { orders: 'nope' } } }),
      CURSOR,
      /no column 'nope' in 'src\.orders'/,
    ],
    ['lagSeconds on an integer cursor', streamJob('refused', { lagSeconds: 60 }), 'dataRequest.incremental.lagSeconds', /applies to date/],
    [
      'a starting value not of its cursor’s form',
      streamJob('refused', { initial: { src: { orders: 'soon' } } }),
      'dataRequest.incremental.initial.src.orders',
      /'soon' is not /,
    ],
    ['a stream name over 128 characters', streamJob('s'.repeat(129)), 'dataRequest.incremental.stream', /at most 128 characters, got 129/],
    ['a stream name with a control character', streamJob('bad\u0007name'), 'dataRequest.incremental.stream', /control characters/],
  ])('refuses %s at submission with 400 FET-0401 naming the field', async (_, job, field, message) => {
    const response = await fetcher.http.post('/v1/fetcher').send(job);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.code).toBe('FET-0401');
    expect(Object.keys(response.body.fields)).toEqual([field]);
    expect(response.body.fields[field]).toMatch(message);
  });

  it('refuses an incremental job’s unknown field as validate-schema would (422 FET-1060), and records nothing refused', async () => {
    const response = await fetcher.http.post('/v1/fetcher').send(streamJob('refused', {}, 'c-1', ['id', 'ghost']));
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'FET-1060', details: [{ type: 'field_not_found', datasource: 'src', field: 'ghost' }] });
    expect((await fetcher.http.get(`/v1/fetcher?source=${PRODUCT}`)).body.total).toBe(0);
    expect((await fetcher.http.get(streamPath('refused'))).status).toBe(404);
  });

  it('keeps one job of a stream active: a second is 409 FET-1111 naming it, PUT and DELETE too; a repeat is its duplicate', async () => {
    const stream = 'busy';
    // The job waits for the table while this transaction holds it: processing, its range not yet bounded.
    const blocker = new pg.Client({ ...TEST_PG, database: source.name });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE orders IN ACCESS EXCLUSIVE MODE');
      const first = await fetcher.http.post('/v1/fetcher').send(streamJob(stream));
      expect(first.status, JSON.stringify(first.body)).toBe(202);
      const id = first.body.jobId as string;
      let job = (await fetcher.http.get(`/v1/fetcher/${id}`)).body;
      for (let poll = 0; poll < 100 && job.status !== 'processing'; poll += 1) {
        await new Promise((done) => setTimeout(done, 50));
        job = (await fetcher.http.get(`/v1/fetcher/${id}`)).body;
      }
      expect(job.status).toBe('processing');
      expect(job.incremental).toEqual({
        stream,
        tables: { src: { orders: { column: 'id', type: 'integer', from: null, fromInclusive: false, to: null, rows: null } } },
      });

      const busy = `stream '${stream}' has job ${id} processing; wait for it or cancel it`;
      const second = await fetcher.http.post('/v1/fetcher').send(streamJob(stream, {}, 'c-2'));
      expect([second.status, second.body]).toEqual([409, { code: 'FET-1111', title: 'Stream Busy', message: busy, jobId: id }]);
      const repeat = await fetcher.http.post('/v1/fetcher').send(streamJob(stream));
      expect([repeat.status, repeat.body.jobId]).toEqual([200, id]);
      const put = await fetcher.http.put(streamPath(stream, '/marks')).send({ marks: {} });
      expect([put.status, put.body.code, put.body.jobId]).toEqual([409, 'FET-1111', id]);
      const reset = await fetcher.http.delete(streamPath(stream));
      expect([reset.status, reset.body.code]).toEqual([409, 'FET-1111']);
      await blocker.query('COMMIT');
      const done = await waitForJob(fetcher.http, id);
      expect(done.status).toBe('completed');
      expect(done.incremental).toMatchObject({ tables: { src: { orders: { from: null, to: '3', rows: 3 } } } });
    } finally {
      await blocker.end();
    }
    // Idle again: the next job of the stream is accepted, and reads nothing new.
    const next = await run(fetcher, streamJob(stream, {}, 'c-2'));
    expect(next.incremental).toMatchObject({ tables: { src: { orders: { from: '3', to: '3', rows: 0 } } } });
    expect((await fetcher.http.delete(streamPath(stream))).status).toBe(204);
  });

  it('keeps the marks across a restart: the next job reads from the previous one’s to; a reset and a PUT move where it starts', async () => {
    const stream = 'nightly';
    const first = await run(fetcher, streamJob(stream, { initial: { src: { orders: 2 } } }));
    expect(first.incremental).toEqual({
      stream,
      tables: { src: { orders: { column: 'id', type: 'integer', from: '2', fromInclusive: true, to: '3', rows: 2 } } },
    });
    expect(await rowsOf(fetcher, first)).toEqual([2, 3]);

    // Stop the whole app (manager and worker in one process) and start it again on the same job store.
    await fetcher.close();
    fetcher = await startEmbeddedFetcher(env(), { dataDir });
    const kept = await fetcher.http.get(streamPath(stream));
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({
      product: PRODUCT,
      name: stream,
      tables: { src: { orders: { column: 'id', type: 'integer', value: '3' } } },
      lastJobId: first.id,
    });
    const listed = await fetcher.http.get(`/v1/fetcher/streams?source=${PRODUCT}`);
    expect(listed.body.items.map((item: { name: string }) => item.name)).toContain(stream);

    await source.query(`INSERT INTO orders (id, note) VALUES (4, 'd'), (5, 'e')`);
    // The very same request: its marks moved, so it is a new job, reading only the new rows.
    const second = await run(fetcher, streamJob(stream, { initial: { src: { orders: 2 } } }));
    expect(second.id).not.toBe(first.id);
    expect(second.incremental).toMatchObject({ tables: { src: { orders: { from: '3', fromInclusive: false, to: '5', rows: 2 } } } });
    expect(await rowsOf(fetcher, second)).toEqual([4, 5]);
    expect((await fetcher.http.get(streamPath(stream))).body).toMatchObject({
      lastJobId: second.id,
      tables: { src: { orders: { value: '5' } } },
    });

    // A reset: the next job starts from the beginning (no initial this time).
    expect((await fetcher.http.delete(streamPath(stream))).status).toBe(204);
    const full = await run(fetcher, streamJob(stream, {}, 'after-reset'));
    expect(full.incremental).toMatchObject({ tables: { src: { orders: { from: null, to: '5', rows: 5 } } } });
    expect(await rowsOf(fetcher, full)).toEqual([1, 2, 3, 4, 5]);

    // A replay from an earlier value.
    const put = await fetcher.http
      .put(streamPath(stream, '/marks'))
      .send({ marks: { src: { orders: { column: 'id', type: 'integer', value: '3' } } } });
    expect(put.status).toBe(200);
    expect(put.body.lastJobId).toBeNull();
    const replay = await run(fetcher, streamJob(stream, {}, 'after-reset'));
    expect(replay.incremental).toMatchObject({ tables: { src: { orders: { from: '3', to: '5', rows: 2 } } } });
    expect(await rowsOf(fetcher, replay)).toEqual([4, 5]);
  });
});
