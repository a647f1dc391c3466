import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShowResult } from '../../src/cli/show-result.js';
import { Cluster } from '../helpers/cluster.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { decodeStoredResult } from '../helpers/result-decoder.js';

const MiB = 1024 * 1024;
const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
const BIG_ROWS = 1_000_000;

/** The cluster, calling its API as the operator unless a call says otherwise. */
class OperatorCluster extends Cluster {
  override api(path: string, init: RequestInit = {}): Promise<Response> {
    return super.api(path, {
      ...init,
      headers: { Authorization: `Bearer ${ADMIN}`, ...(init.headers as Record<string, string> | undefined) },
    });
  }
}

function vmRssBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/** Reads a response body chunk by chunk; how far it got when it failed, instead of a throw. */
async function readBody(response: Response, into?: Buffer): Promise<{ received: number; failed: boolean; sha256: string }> {
  const hash = createHash('sha256');
  let received = 0;
  let failed = false;
  try {
    for await (const chunk of response.body ?? []) {
      const bytes = chunk as Uint8Array;
      hash.update(bytes);
      if (into) into.set(bytes, received);
      received += bytes.length;
    }
  } catch {
    failed = true;
  }
  return { received, failed, sha256: hash.digest('hex') };
}

function capture(): { stream: PassThrough; bytes: () => Buffer } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, bytes: () => Buffer.concat(chunks) };
}

/**
 * GET /v1/fetcher/{id}/result on a distributed deployment: a Manager and a Worker process sharing
 * PostgreSQL, Redis and S3 (s3rver), with API keys. The Manager streams the result out of S3,
 * verified on the way, in bounded memory.
 */
describe('result download: GET /v1/fetcher/{id}/result (manager + worker processes, PostgreSQL, Redis, s3rver)', () => {
  const cluster = new OperatorCluster({ env: { AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN } });
  const configName = `pg_dl_${randomUUID().slice(0, 8)}`;
  const source = useTempDatabase('e2e_result_dl');
  let dataDir: string;
  const keys = { reporter: '', other: '' };
  const jobs = { big: '', medium: '', small: '', failed: '' };
  const completed: Record<string, Record<string, any>> = {};
  /** The Manager's VmRSS right after boot, before any request: the idle the download is measured against. */
  let managerIdleRss = 0;

  beforeAll(async () => {
    await source().query(`
      CREATE TABLE big (id bigint PRIMARY KEY, label text NOT NULL, amount numeric(12,2) NOT NULL, flag boolean NOT NULL, created timestamptz NOT NULL, day date NOT NULL);
      INSERT INTO big
        SELECT g, 'row-' || md5(g::text), (g % 100000) / 100.0, g % 3 = 0, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second', date '2026-01-01' + (g % 365)
        FROM generate_series(1, ${BIG_ROWS}) g;
      CREATE TABLE medium AS SELECT * FROM big WHERE id <= 20000;
      ALTER TABLE medium ADD PRIMARY KEY (id);
      CREATE TABLE small (id int PRIMARY KEY, name text);
      INSERT INTO small VALUES (1, 'Zoë'), (2, 'Ada');`);
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-result-dl-'));
    await cluster.start(1);
    managerIdleRss = vmRssBytes(cluster.manager.child.pid as number);
    const issue = async (productName: string) => {
      const response = await cluster.api('/v1/management/api-keys', {
        method: 'POST',
        body: JSON.stringify({ productName, name: 'result download e2e' }),
      });
      if (response.status !== 201) throw new Error(`issue key: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { key: string }).key;
    };
    keys.reporter = await issue('reporter');
    keys.other = await issue('other');
    await cluster.registerPostgres(configName, source());
    [jobs.big, jobs.medium, jobs.small, jobs.failed] = await Promise.all([
      cluster.submit({ [configName]: { big: ['*'] } }),
      cluster.submit({ [configName]: { medium: ['*'] } }),
      cluster.submit({ [configName]: { small: ['*'] } }),
      cluster.submit({ [configName]: { no_such_table: ['id'] } }),
    ]);
    for (const [name, id] of Object.entries(jobs)) {
      const job = await cluster.waitForTerminal(id, 240_000);
      expect(job.status, `${name}: ${JSON.stringify(job.error)}`).toBe(name === 'failed' ? 'failed' : 'completed');
      completed[name] = job;
    }
  }, 420_000);

  afterAll(async () => {
    await cluster.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const storedObject = async (resultPath: string): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of await cluster.s3client.getObject(cluster.s3.bucket, resultPath)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  it(`streams a ${BIG_ROWS}-row result byte for byte, its SHA-256 the job's, with the manager's memory flat`, async () => {
    const job = completed.big as Record<string, any>;
    expect(job.result.rowCount).toBe(BIG_ROWS);
    const plaintext = Buffer.from(decodeStoredResult(await storedObject(job.resultPath), TEST_MASTER_KEY).plaintext, 'utf8');
    expect(plaintext.length).toBe(job.result.sizeBytes);

    const pid = cluster.manager.child.pid as number;
    const before = vmRssBytes(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, vmRssBytes(pid));
    }, 50);
    const started = Date.now();
    let body: Awaited<ReturnType<typeof readBody>>;
    const downloaded = Buffer.alloc(job.result.sizeBytes);
    let response: Response;
    try {
      response = await cluster.api(`/v1/fetcher/${jobs.big}/result`);
      body = await readBody(response, downloaded);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, vmRssBytes(pid));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `result download of ${(job.result.sizeBytes / MiB).toFixed(1)} MiB in ${seconds.toFixed(1)} s: manager VmRSS before ${(before / MiB).toFixed(1)} MiB, ` +
        `peak ${(peak / MiB).toFixed(1)} MiB, idle after boot ${(managerIdleRss / MiB).toFixed(1)} MiB, peak − idle ${((peak - managerIdleRss) / MiB).toFixed(1)} MiB (limit 150 MiB)`,
    );

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(Number(response.headers.get('content-length'))).toBe(job.result.sizeBytes);
    expect(response.headers.get('etag')).toBe(`"${job.result.sha256}"`);
    expect(response.headers.get('x-result-sha256')).toBe(job.result.sha256);
    expect(response.headers.get('x-result-hmac')).toBe(job.resultHmac);
    expect(response.headers.get('x-result-key-version')).toBe(job.resultKeyVersion);
    expect(body.failed).toBe(false);
    expect(body.received).toBe(job.result.sizeBytes);
    expect(body.sha256).toBe(job.result.sha256);
    expect(downloaded.equals(plaintext)).toBe(true);
    expect(managerIdleRss).toBeGreaterThan(0);
    expect(peak - managerIdleRss).toBeLessThan(150 * MiB);
  }, 180_000);

  it('with raw=true, streams the stored object exactly as it is in S3', async () => {
    const job = completed.big as Record<string, any>;
    const stored = await storedObject(job.resultPath);
    const response = await cluster.api(`/v1/fetcher/${jobs.big}/result?raw=true`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(Number(response.headers.get('content-length'))).toBe(stored.length);
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('x-result-sha256')).toBe(job.result.sha256);
    expect(response.headers.get('x-result-hmac')).toBe(job.resultHmac);
    expect(response.headers.get('x-result-key-version')).toBe(job.resultKeyVersion);
    const downloaded = Buffer.alloc(stored.length);
    const body = await readBody(response, downloaded);
    expect(body.received).toBe(stored.length);
    expect(downloaded.equals(stored)).toBe(true);
  }, 120_000);

  it('downloads through the route with the CLI, which then needs no store access: opened here with a key, SHA-256-checked without one', async () => {
    const job = completed.small as Record<string, any>;
    const { plaintext } = decodeStoredResult(await storedObject(job.resultPath), TEST_MASTER_KEY);
    // No S3 settings at all: the CLI's own storage would be a local directory holding nothing.
    const base = { FETCHER_URL: cluster.manager.url, FETCHER_TOKEN: keys.reporter, DATA_DIR: dataDir, NODE_ENV: 'test' };
    for (const [env, verdict] of [
      [{ ...base, APP_ENC_KEY: TEST_MASTER_KEY }, `HMAC: verified (${job.resultHmac})`],
      [base, 'HMAC: not verified here'],
    ] as const) {
      const out = capture();
      const err = capture();
      const code = await runShowResult([jobs.small], { env, stdout: out.stream, stderr: err.stream });
      expect(err.bytes().toString()).toContain(verdict);
      expect(err.bytes().toString()).toContain(`SHA-256: verified (${job.result.sha256}`);
      expect(out.bytes().toString()).toBe(plaintext);
      expect(code).toBe(0);
    }
  });

  it('cuts the connection when the stored object was tampered with (same length), and the manager logs why', async () => {
    const job = completed.medium as Record<string, any>;
    const stored = await storedObject(job.resultPath);
    const raw = Buffer.from(stored.toString('latin1'), 'base64');
    // A ciphertext byte in the middle: the nonce (first 12) and tag (last 16) stay as they are.
    raw[Math.floor(raw.length / 2)] = (raw[Math.floor(raw.length / 2)] as number) ^ 0x01;
    const tampered = Buffer.from(raw.toString('base64'), 'latin1');
    expect(tampered.length).toBe(stored.length);
    await cluster.s3client.putObject(cluster.s3.bucket, job.resultPath, tampered, tampered.length);

    const response = await cluster.api(`/v1/fetcher/${jobs.medium}/result`);
    expect(response.status).toBe(200);
    const length = Number(response.headers.get('content-length'));
    expect(length).toBe(job.result.sizeBytes);
    const body = await readBody(response);
    console.log(`tampered download: ${body.received} of ${length} bytes, body read ${body.failed ? 'rejected' : 'ended'}`);
    expect(body.failed || body.received < length).toBe(true);
    expect(body.received).toBeLessThan(length);

    const logged = new RegExp(`result of job ${jobs.medium}: verification failed \\(authentication\\).*the response was cut off`);
    const deadline = Date.now() + 10_000;
    while (!logged.test(cluster.manager.output()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(cluster.manager.output()).toMatch(logged);
    expect(cluster.manager.output()).not.toContain(TEST_MASTER_KEY);

    // The CLI, whichever way it downloads, refuses it too and prints nothing.
    for (const env of [{ APP_ENC_KEY: TEST_MASTER_KEY }, {}]) {
      const out = capture();
      const err = capture();
      const code = await runShowResult([jobs.medium], {
        env: { FETCHER_URL: cluster.manager.url, FETCHER_TOKEN: ADMIN, DATA_DIR: dataDir, NODE_ENV: 'test', ...env },
        stdout: out.stream,
        stderr: err.stream,
      });
      expect(err.bytes().toString()).toMatch(/failed authentication|cut short/);
      expect(out.bytes().length).toBe(0);
      expect(code).toBe(1);
    }
  }, 60_000);

  it('answers 409 for a pending and for a failed job', async () => {
    const worker = cluster.workers[0]?.child.pid as number;
    process.kill(worker, 'SIGSTOP');
    try {
      const pending = await cluster.submit({ [configName]: { small: ['id'] } });
      expect((await cluster.job(pending)).status).toBe('pending');
      const response = await cluster.api(`/v1/fetcher/${pending}/result`);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: 'FET-1108', message: expect.stringMatching(/is pending/) });
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    const failed = await cluster.api(`/v1/fetcher/${jobs.failed}/result`);
    expect(failed.status).toBe(409);
    expect(await failed.json()).toMatchObject({ code: 'FET-1108', message: expect.stringMatching(/failed/) });
  });

  it('answers 404 for an unknown job and for another product’s; 400 for a malformed id, raw=yes or an unknown parameter', async () => {
    const unknown = await cluster.api(`/v1/fetcher/${randomUUID()}/result`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('FET-1001');
    const others = await cluster.api(`/v1/fetcher/${jobs.small}/result`, { headers: { Authorization: `Bearer ${keys.other}` } });
    expect(others.status).toBe(404);
    expect(((await others.json()) as { code: string }).code).toBe('FET-1001');

    const badId = await cluster.api('/v1/fetcher/not-a-uuid/result');
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as { code: string }).code).toBe('FET-0404');
    for (const [query, parameter] of [
      ['raw=yes', 'raw'],
      ['raw=', 'raw'],
      ['raw=true&raw=false', 'raw'],
      ['format=csv', 'format'],
    ]) {
      const response = await cluster.api(`/v1/fetcher/${jobs.small}/result?${query}`);
      expect(response.status, query).toBe(400);
      const envelope = (await response.json()) as { code: string; fields: Record<string, string> };
      expect(envelope.code, query).toBe('FET-0405');
      expect(Object.keys(envelope.fields), query).toEqual([parameter]);
    }
  });

  it('asks for a credential (401), hides another product’s result (404), serves its own product and the operator (200)', async () => {
    const path = `${cluster.manager.url}/v1/fetcher/${jobs.small}/result`;
    const anonymous = await fetch(path);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { code: string }).code).toBe('FET-0010');
    expect((await fetch(path, { headers: { Authorization: `Bearer ${keys.other}` } })).status).toBe(404);
    for (const key of [keys.reporter, ADMIN]) {
      const response = await fetch(path, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect((await readBody(response)).sha256).toBe((completed.small as Record<string, any>).result.sha256);
    }
  });

  it('answers 410 once the result’s deletion was requested', async () => {
    await cluster.store.query('UPDATE jobs SET result_delete_requested_at = now() WHERE id = $1', [jobs.small]);
    for (const query of ['', '?raw=true']) {
      const response = await cluster.api(`/v1/fetcher/${jobs.small}/result${query}`);
      expect(response.status, query).toBe(410);
      expect(((await response.json()) as { code: string }).code, query).toBe('FET-1109');
    }
  });
});
