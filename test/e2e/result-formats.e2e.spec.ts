import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShowResult } from '../../src/cli/show-result.js';
import { startEmbeddedFetcher, TEST_MASTER_KEY, waitForJob, type EmbeddedFetcher, type JobView } from '../helpers/fetcher-app.js';
import { internalPostgresEnv, useTempDatabase } from '../helpers/pg-database.js';
import { listenLocally, rawGet } from '../helpers/raw-http.js';

const PRODUCT = `formats_${randomBytes(3).toString('hex')}`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function capture(): { stream: PassThrough; text: () => string; bytes: () => Buffer } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString(), bytes: () => Buffer.concat(chunks) };
}

type Job = JobView & { output: { format: string; compression: string } };

/**
 * A job's `output` end to end on an embedded Fetcher (AUTH_MODE=none): the request's checks and
 * deduplication, the one-object formats' downloads, and `fetcher result --out` for a per-table result.
 */
describe('result formats: output on POST /v1/fetcher, downloads and the CLI', () => {
  const source = useTempDatabase('e2e_result_formats');
  let fetcher: EmbeddedFetcher;
  let base: string;
  let cliDir: string;

  const body = (correlationId: string, output?: unknown) => ({
    dataRequest: { mappedFields: { src: { orders: ['*'], 'accounting.invoices': ['id'] } } },
    ...(output === undefined ? {} : { output }),
    metadata: { source: PRODUCT, correlationId },
  });
  const run = async (payload: object): Promise<Job> => {
    const response = await fetcher.http.post('/v1/fetcher').send(payload);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return (await waitForJob(fetcher.http, response.body.jobId)) as Job;
  };
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const out = capture();
    const err = capture();
    const code = await runShowResult(args, {
      env: { FETCHER_URL: base, DATA_DIR: cliDir, NODE_ENV: 'test', ...env },
      stdout: out.stream,
      stderr: err.stream,
    });
    return { code, stdout: out.bytes(), stderr: err.text() };
  };

  beforeAll(async () => {
    await source().query(`
      CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL);
      INSERT INTO orders VALUES (1, 'pen'), (2, 'ink');
      CREATE SCHEMA accounting;
      CREATE TABLE accounting.invoices (id int PRIMARY KEY);
      INSERT INTO accounting.invoices VALUES (10);`);
    fetcher = await startEmbeddedFetcher(internalPostgresEnv('src', source()));
    base = await listenLocally(fetcher.app);
    cliDir = mkdtempSync(join(tmpdir(), 'fetcher-formats-cli-'));
  }, 60_000);

  afterAll(async () => {
    await fetcher?.close();
    if (cliDir) rmSync(cliDir, { recursive: true, force: true });
  });

  it.each([
    [{ format: 'xml' }, 'output.format', 'output.format must be one of json, ndjson, csv, parquet'],
    [{ format: 'csv', compression: 'brotli' }, 'output.compression', 'output.compression must be one of none, gzip, zstd'],
    [{ format: 'csv', level: 9 }, 'output.level', 'output.level is not a known field'],
  ])('refuses output %j with 400 FET-0001 naming %s', async (output, field, message) => {
    const response = await fetcher.http.post('/v1/fetcher').send(body('bad', output));
    expect([response.status, response.body.code]).toEqual([400, 'FET-0001']);
    expect(response.body.fields).toEqual({ [field]: message });
  });

  it('dedupes on the output: the default given or not is one job, another output another', async () => {
    const plain = await fetcher.http.post('/v1/fetcher').send(body('dedup'));
    expect(plain.status).toBe(202);
    const spelled = await fetcher.http.post('/v1/fetcher').send(body('dedup', { format: 'json', compression: 'none' }));
    expect([spelled.status, spelled.body.jobId]).toEqual([200, plain.body.jobId]);
    const csv = await fetcher.http.post('/v1/fetcher').send(body('dedup', { format: 'csv' }));
    expect(csv.status).toBe(202);
    const csvAgain = await fetcher.http.post('/v1/fetcher').send(body('dedup', { compression: 'none', format: 'csv' }));
    expect([csvAgain.status, csvAgain.body.jobId]).toEqual([200, csv.body.jobId]);
    const jobs = await Promise.all([plain, csv].map((answer) => waitForJob(fetcher.http, answer.body.jobId)));
    expect(jobs.map((job) => job.requestHash)).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.not.stringMatching(jobs[0]?.requestHash as string),
    ]);
  });

  it('downloads a json result with exactly the headers it always had', async () => {
    const job = await run(body('json'));
    expect(job.output).toEqual({ format: 'json', compression: 'none' });
    const answer = await rawGet(`${base}/v1/fetcher/${job.id}/result`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBe(`"${job.result?.sha256}"`);
    expect(JSON.parse(answer.body.toString())).toEqual({
      src: {
        'accounting.invoices': [{ id: 10 }],
        orders: [
          { id: 1, item: 'pen' },
          { id: 2, item: 'ink' },
        ],
      },
    });
  });

  it.each([
    ['gzip', gunzipSync],
    ['zstd', zstdDecompressSync],
  ] as const)(
    'downloads an ndjson+%s result as stored, Content-Encoding its name, its digests those of the compressed bytes; the CLI too',
    async (compression, decompress) => {
      const job = await run(body(`ndjson-${compression}`, { format: 'ndjson', compression }));
      expect(job.output).toEqual({ format: 'ndjson', compression });
      expect(job.result).not.toHaveProperty('parts');
      const answer = await rawGet(`${base}/v1/fetcher/${job.id}/result`);
      expect(answer.headers['content-type']).toBe('application/x-ndjson');
      expect(answer.headers['content-encoding']).toBe(compression);
      expect(Number(answer.headers['content-length'])).toBe(job.result?.sizeBytes);
      expect(answer.sha256).toBe(job.result?.sha256);
      expect(decompress(answer.body).toString().split('\n')[0]).toBe('{"datasource":"src","table":"accounting.invoices","row":{"id":10}}');

      // Without a key the CLI takes the server-verified bytes, undecoded; with one it opens the sealed object.
      for (const env of [{}, { APP_ENC_KEY: TEST_MASTER_KEY }] as Record<string, string>[]) {
        const shown = await cli([job.id], env);
        expect(shown.stderr).toContain(`SHA-256: verified (${job.result?.sha256}`);
        expect(shown.stdout.equals(answer.body)).toBe(true);
        expect(shown.code).toBe(0);
      }
    },
  );

  it('fetcher result --out writes every verified part of a csv result under <datasource>/<file>, with or without a key', async () => {
    const job = await run(body('cli-csv', { format: 'csv', compression: 'gzip' }));
    const parts = (job.result as unknown as { parts: Array<{ table: string; sha256: string; path: string }> }).parts;
    for (const env of [{ APP_ENC_KEY: TEST_MASTER_KEY }, {}] as Record<string, string>[]) {
      const out = mkdtempSync(join(cliDir, 'out-'));
      const saved = await cli([job.id, '--out', out], env);
      expect(saved.stderr).toContain(`2 parts of job ${job.id} (csv, gzip) in ${out}`);
      expect(saved.code).toBe(0);
      expect(readdirSync(join(out, 'src')).sort()).toEqual(['accounting.invoices.csv.gz', 'orders.csv.gz']);
      for (const part of parts) expect(sha256(readFileSync(join(out, 'src', `${part.table}.csv.gz`)))).toBe(part.sha256);
      expect(gunzipSync(readFileSync(join(out, 'src', 'orders.csv.gz'))).toString()).toBe('id,item\n1,pen\n2,ink\n');
    }
    const manifest = await cli([job.id]);
    expect(manifest.stderr).toContain('a per-table result: its manifest follows; --out <dir> downloads its parts');
    expect(JSON.parse(manifest.stdout.toString()).parts).toEqual(parts);
  });

  it('fetcher result --out fails on a tampered part, saying which, and keeps no file of the result', async () => {
    const job = await run(body('cli-tamper', { format: 'csv', compression: 'none' }));
    const parts = (job.result as unknown as { parts: Array<{ path: string }> }).parts;
    const file = join(fetcher.dataDir, 'results', (parts[1] as { path: string }).path);
    const stored = readFileSync(file);
    stored[Math.floor(stored.length / 2)] = stored[Math.floor(stored.length / 2)] === 0x41 ? 0x42 : 0x41;
    writeFileSync(file, stored);
    for (const env of [{ APP_ENC_KEY: TEST_MASTER_KEY }, {}] as Record<string, string>[]) {
      const out = mkdtempSync(join(cliDir, 'tampered-'));
      const saved = await cli([job.id, '--out', out], env);
      expect(saved.code).toBe(1);
      expect(saved.stderr).toMatch(
        new RegExp(`error: part src/orders of job ${job.id}: (result object failed authentication|GET .* answered 502 FET-1104)`),
      );
      expect(saved.stderr).toContain(`nothing of job ${job.id}'s result was kept in ${out}`);
      expect(existsSync(join(out, 'src', 'accounting.invoices.csv'))).toBe(false);
      expect(readdirSync(join(out, 'src')).filter((name) => !name.startsWith('.'))).toEqual([]);
    }
  });
});
