import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFetcherClient,
  downloadToFile,
  FetcherApiError,
  FetcherIntegrityError,
  FetcherWaitError,
  type FetcherClient,
  type SubmitJobBody,
} from '../../src/client/index.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const SLOW_ROWS = 20_000;

/** Every byte of a stream, or the error it ends with. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    chunks.push(value);
  }
}

/** globalThis.fetch, with the body of every result download passed through `tamper` (headers kept). */
function tamperingFetch(tamper: (bytes: Uint8Array) => Uint8Array) {
  return async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    if (!new URL(request.url).pathname.endsWith('/result') || !response.ok) return response;
    const bytes = tamper(new Uint8Array(await response.arrayBuffer()));
    const headers = new Headers(response.headers);
    headers.set('Content-Length', String(bytes.byteLength));
    return new Response(bytes, { status: response.status, headers });
  };
}

/**
 * fetcher/client against a running Fetcher (embedded, listening on an ephemeral port): it submits,
 * waits, downloads with the SHA-256 verified (a changed or short body fails), cancels, and its wait
 * stops on a timeout or an abort, saying which.
 */
describe('fetcher/client against a running Fetcher', () => {
  const source = useTempDatabase('e2e_client');
  let fetcher: EmbeddedFetcher;
  let baseUrl: string;
  let client: FetcherClient;
  let scratch: string;
  const metadata = { source: 'reporter', correlationId: randomUUID() };
  const quickJob = (): SubmitJobBody => ({
    dataRequest: {
      mappedFields: { pg_source: { accounts: ['id', 'email'], 'accounting.invoices': ['*'] } },
      filters: { pg_source: { accounts: { id: { gte: [2] } } } },
    },
    metadata,
  });

  beforeAll(async () => {
    await source().query(`
      CREATE TABLE accounts (id int PRIMARY KEY, email text NOT NULL);
      INSERT INTO accounts VALUES (1, 'one@example.com'), (2, 'two@example.com'), (3, 'three@example.com');
      CREATE SCHEMA accounting;
      CREATE TABLE accounting.invoices (id int PRIMARY KEY, amount numeric(10,2) NOT NULL);
      INSERT INTO accounting.invoices VALUES (10, 42.00);
      CREATE TABLE slow_source (id int PRIMARY KEY);
      INSERT INTO slow_source SELECT g FROM generate_series(1, ${SLOW_ROWS}) g;
      -- 20,000 rows at 1 ms each: a job that is still reading (or queued behind it) when cancelled.
      CREATE VIEW slow_rows AS SELECT id, pg_sleep(0.001)::text AS waited FROM slow_source;`);
    fetcher = await startEmbeddedFetcher({ WORKER_CONCURRENCY: '1' });
    await fetcher.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(fetcher.app.getHttpServer().address() as AddressInfo).port}`;
    client = createFetcherClient({ baseUrl, productName: 'reporter' });
    const created = await client.raw.POST('/v1/management/connections', {
      body: pgConnectionBody(source(), { configName: 'pg_source' }),
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    scratch = mkdtempSync(join(tmpdir(), 'fetcher-client-'));
  });

  afterAll(async () => {
    await fetcher?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('submits (202, then the same job again as a duplicate), waits, lists, and downloads the verified result', async () => {
    const submitted = await client.submit(quickJob());
    expect(submitted).toMatchObject({ status: 'pending', duplicate: false });
    const job = await client.waitFor(submitted.jobId, { timeoutMs: 30_000, intervalMs: 100 });
    expect(job.status).toBe('completed');
    expect(job.result?.rowCounts).toEqual({ pg_source: { accounts: 2, 'accounting.invoices': 1 } });
    expect(job.progress?.tables).toEqual({
      pg_source: { accounts: { status: 'done', rows: 2 }, 'accounting.invoices': { status: 'done', rows: 1 } },
    });
    expect(await client.submit(quickJob())).toMatchObject({ jobId: submitted.jobId, status: 'completed', duplicate: true });

    const page = await client.list({ source: 'reporter', status: 'completed' });
    expect(page.items.map((item) => item.id)).toContain(submitted.jobId);

    const download = await client.download(submitted.jobId);
    expect(download).toMatchObject({
      verified: true,
      sha256: job.result?.sha256,
      contentType: expect.stringMatching(/^application\/json/),
    });
    expect(JSON.parse((await readAll(download.stream)).toString())).toEqual({
      pg_source: {
        accounts: [
          { id: 2, email: 'two@example.com' },
          { id: 3, email: 'three@example.com' },
        ],
        'accounting.invoices': [{ id: 10, amount: '42.00' }],
      },
    });

    const target = join(scratch, 'result.json');
    expect(await downloadToFile(client, submitted.jobId, target, { expectedSha256: job.result?.sha256 })).toBe(job.result?.sha256);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toHaveProperty('pg_source.accounts');
  });

  it('errors the download stream at its end when a byte was changed or the body is short, and keeps no file', async () => {
    const { jobId } = await client.submit(quickJob());
    await client.waitFor(jobId, { timeoutMs: 30_000, intervalMs: 100 });
    const flipped = createFetcherClient({
      baseUrl,
      fetch: tamperingFetch((bytes) => bytes.map((byte, index) => (index === 5 ? byte ^ 0x01 : byte))),
    });
    const short = createFetcherClient({ baseUrl, fetch: tamperingFetch((bytes) => bytes.subarray(0, -1)) });
    for (const tampered of [flipped, short]) {
      const download = await tampered.download(jobId);
      await expect(readAll(download.stream)).rejects.toBeInstanceOf(FetcherIntegrityError);
    }
    const target = join(scratch, 'tampered.json');
    await expect(downloadToFile(flipped, jobId, target)).rejects.toThrow(/not the announced/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(scratch).filter((name) => name.startsWith('tampered'))).toEqual([]);
    // A digest the caller knows must be the one the server announces.
    await expect(client.download(jobId, { expectedSha256: '0'.repeat(64) })).rejects.toBeInstanceOf(FetcherIntegrityError);
  });

  it('waitFor stops with reason timeout, then reason aborted, and cancel fails the slow job with FET-1105', async () => {
    const { jobId } = await client.submit({ dataRequest: { mappedFields: { pg_source: { slow_rows: ['*'] } } }, metadata });
    const timedOut = await client.waitFor(jobId, { timeoutMs: 300, intervalMs: 50 }).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(FetcherWaitError);
    expect(timedOut).toMatchObject({ reason: 'timeout', jobId, lastStatus: expect.stringMatching(/^(pending|processing)$/) });

    const controller = new AbortController();
    const waiting = client.waitFor(jobId, { signal: controller.signal, timeoutMs: 60_000, intervalMs: 5_000 });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'FetcherWaitError', reason: 'aborted', jobId });

    const cancelled = await client.cancel(jobId);
    expect(cancelled).toMatchObject({ id: jobId, status: 'failed', error: { code: 'FET-1105' } });
    expect(await client.waitFor(jobId, { timeoutMs: 10_000 })).toMatchObject({ status: 'failed', error: { code: 'FET-1105' } });
    await expect(client.download(jobId)).rejects.toMatchObject({ name: 'FetcherApiError', status: 409, code: 'FET-1108' });
  });

  it('turns error answers into a FetcherApiError with the status and the FET envelope', async () => {
    const invalid = await client.get('not-a-uuid').catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(FetcherApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'FET-0404', envelope: { code: 'FET-0404', title: expect.any(String) } });
    await expect(client.get(randomUUID())).rejects.toMatchObject({ status: 404, code: 'FET-1001' });
    await expect(client.list({ sortOrder: 'sideways' as 'asc' })).rejects.toMatchObject({ status: 400, code: 'FET-0407' });
  });
});
