import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShowResult } from '../../src/cli/show-result.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { LocalObjectStore } from '../../src/storage/local/local-object-store.js';
import { ResultStorageService, type StoredResult } from '../../src/storage/result-storage.service.js';

function capture(): { stream: PassThrough; text: () => string; bytes: () => Buffer } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString(), bytes: () => Buffer.concat(chunks) };
}

describe('show-result CLI (npm run result)', () => {
  let dir: string;
  let api: Server;
  let env: NodeJS.ProcessEnv;
  let stored: StoredResult;
  let sealedObject: Buffer;
  /** Requests the fake API saw for GET …/result, as `<id> <query>`. */
  const resultRequests: string[] = [];
  const plaintext = '{"crm":{"customers":[{"id":1,"name":"Zoë"}]}}';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fetcher-show-result-'));
    const baseEnv = { DATA_DIR: dir, RESULTS_DIR: join(dir, 'results'), APP_ENC_KEY: randomBytes(32).toString('base64') };
    const config = loadAppConfig(baseEnv);
    const service = new ResultStorageService(new LocalObjectStore(join(dir, 'results')), config);
    const sink = await service.openSink('job-ok', 1024);
    await sink.write(plaintext);
    stored = await sink.finish();
    sealedObject = await new LocalObjectStore(join(dir, 'results')).read(stored.path);

    const jobs: Record<string, unknown> = {
      'job-ok': {
        status: 'completed',
        resultPath: stored.path,
        resultHmac: stored.hmac,
        result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
      },
      'job-forged': {
        status: 'completed',
        resultPath: stored.path,
        resultHmac: 'ab'.repeat(32),
        result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
      },
      'job-running': { status: 'processing' },
      'job-api': {
        status: 'completed',
        resultPath: stored.path,
        resultHmac: stored.hmac,
        resultKeyVersion: '1',
        result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
      },
      'job-bad-etag': {
        status: 'completed',
        resultPath: stored.path,
        resultHmac: stored.hmac,
        result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
      },
      'job-cut': {
        status: 'completed',
        resultPath: stored.path,
        resultHmac: stored.hmac,
        result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
      },
      'job-gone': {
        status: 'completed',
        resultPath: stored.path,
        resultHmac: stored.hmac,
        result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
      },
      'job-failed': { status: 'failed', error: { code: 'FET-1101', message: 'extraction result exceeds the size limit' } },
    };
    // GET …/result as a Fetcher with the route answers it; the other jobs get the 404 of an older one.
    const results: Record<string, (raw: boolean, res: ServerResponse) => void> = {
      'job-api': (raw, res) => {
        const body = raw ? sealedObject : Buffer.from(plaintext);
        res.writeHead(200, {
          'content-type': raw ? 'application/octet-stream' : 'application/json',
          'content-length': body.length,
          ...(raw ? {} : { etag: `"${stored.sha256}"` }),
        });
        res.end(body);
      },
      'job-bad-etag': (_, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(plaintext),
          etag: `"${'0'.repeat(64)}"`,
        });
        res.end(plaintext);
      },
      'job-cut': (raw, res) => {
        const body = raw ? sealedObject : Buffer.from(plaintext);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.write(body.subarray(0, 10), () => res.destroy());
      },
      'job-gone': (_, res) => {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'FET-1109', title: 'Result Deleted', message: 'the result of job job-gone was deleted' }));
      },
    };
    api = createServer((req, res) => {
      const route = /^\/v1\/fetcher\/([^/?]+)\/result(\?.*)?$/.exec(req.url ?? '');
      const serve = route ? results[route[1] as string] : undefined;
      if (route && serve) {
        resultRequests.push(`${route[1]} ${route[2] ?? ''}`);
        serve(route[2] === '?raw=true', res);
        return;
      }
      const id = decodeURIComponent(req.url?.replace('/v1/fetcher/', '') ?? '');
      const job = jobs[id];
      res.writeHead(job ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(job ?? { code: 'FET-1001', title: 'Entity Not Found', message: 'job not found' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    env = { ...baseEnv, FETCHER_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}` };
  });

  afterAll(async () => {
    await new Promise((resolve) => api?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  async function run(argv: string[], overrides: NodeJS.ProcessEnv = {}) {
    const out = capture();
    const err = capture();
    const code = await runShowResult(argv, { env: { ...env, ...overrides }, stdout: out.stream, stderr: err.stream });
    return { code, stdout: out.bytes(), stderr: err.text() };
  }

  it('prints the exact plaintext and a verified HMAC for a completed job', async () => {
    const { code, stdout, stderr } = await run(['job-ok']);
    expect(stdout.equals(Buffer.from(plaintext))).toBe(true);
    expect(stderr).toContain(`HMAC: verified (${stored.hmac})`);
    expect(code).toBe(0);
  });

  it('reports a mismatch and exits 1 when the job HMAC does not match the object', async () => {
    const { code, stderr } = await run(['job-forged']);
    expect(stderr).toContain(`HMAC: MISMATCH (expected ${'ab'.repeat(32)}, computed ${stored.hmac})`);
    expect(code).toBe(1);
  });

  it.each([
    ['job-running', /job job-running is processing; only a completed job has a result/],
    ['job-failed', /job job-failed is failed \(FET-1101: extraction result exceeds the size limit\)/],
    ['job-missing', /job job-missing not found/],
  ])('explains why %s has nothing to show and exits 1', async (id, message) => {
    const { code, stdout, stderr } = await run([id]);
    expect(stderr).toMatch(message);
    expect(stdout.length).toBe(0);
    expect(code).toBe(1);
  });

  it('says so when the API cannot be reached', async () => {
    const { code, stderr } = await run(['job-ok'], { FETCHER_URL: 'http://127.0.0.1:9' });
    expect(stderr).toMatch(/cannot reach Fetcher at http:\/\/127\.0\.0\.1:9/);
    expect(code).toBe(1);
  });

  it('verifies a downloaded object offline with --file and --hmac', async () => {
    const file = join(dir, 'downloaded.json');
    await writeFile(file, await new LocalObjectStore(join(dir, 'results')).read(stored.path));

    const good = await run(['--file', file, '--hmac', stored.hmac]);
    expect(good.stdout.toString()).toBe(plaintext);
    expect(good.stderr).toContain(`HMAC: verified (${stored.hmac})`);
    expect(good.code).toBe(0);

    const bad = await run(['--file', file, '--hmac', 'cd'.repeat(32)]);
    expect(bad.stderr).toContain('HMAC: MISMATCH');
    expect(bad.code).toBe(1);

    const wrongKey = await run(['--file', file, '--hmac', stored.hmac], { APP_ENC_KEY: randomBytes(32).toString('base64') });
    expect(wrongKey.stderr).toMatch(/failed authentication/);
    expect(wrongKey.stdout.length).toBe(0);
    expect(wrongKey.code).toBe(1);
  });

  describe('through GET /v1/fetcher/{id}/result', () => {
    /** No results directory at all: whatever opens the result, it is not the store. */
    const noStore = () => ({ RESULTS_DIR: join(dir, 'no-such-results-dir') });
    /** No master key and no development key: only the server can open the result. */
    const keyless = async () => {
      const empty = await mkdtemp(join(dir, 'keyless-'));
      return { APP_ENC_KEY: '', DATA_DIR: empty, ...noStore() };
    };

    it('with the key, downloads the sealed object and opens and verifies it here, without touching the store', async () => {
      resultRequests.length = 0;
      const { code, stdout, stderr } = await run(['job-api'], noStore());
      expect(stdout.equals(Buffer.from(plaintext))).toBe(true);
      expect(resultRequests).toEqual(['job-api ?raw=true']);
      expect(stderr).toMatch(/downloaded from http:\/\/127\.0\.0\.1:\d+, opened with key version 1/);
      expect(stderr).toContain(`HMAC: verified (${stored.hmac})`);
      expect(stderr).toContain(`SHA-256: verified (${stored.sha256})`);
      expect(code).toBe(0);
    });

    it('without any key, downloads the plaintext and checks its SHA-256 against the job and the ETag; the HMAC is left to the server', async () => {
      resultRequests.length = 0;
      const env = await keyless();
      const { code, stdout, stderr } = await run(['job-api'], env);
      expect(stdout.equals(Buffer.from(plaintext))).toBe(true);
      expect(resultRequests).toEqual(['job-api ']);
      expect(stderr).toContain('verified by the server');
      expect(stderr).toMatch(/HMAC: not verified here \(APP_ENC_KEY is not set/);
      expect(stderr).toContain(`SHA-256: verified (${createHash('sha256').update(plaintext).digest('hex')}, the job’s and the ETag)`);
      expect(code).toBe(0);
      expect(await readdir(env.DATA_DIR)).toEqual([]);
    });

    it('fails on an ETag that is not the plaintext’s SHA-256', async () => {
      const { code, stderr } = await run(['job-bad-etag'], await keyless());
      expect(stderr).toMatch(/SHA-256: MISMATCH \(ETag "0{64}", computed [0-9a-f]{64}\)/);
      expect(code).toBe(1);
    });

    it.each([
      ['with the key', noStore],
      ['without a key', keyless],
    ])('refuses a body cut short of its Content-Length (%s), printing nothing', async (_, env) => {
      const { code, stdout, stderr } = await run(['job-cut'], await env());
      expect(stderr).toMatch(/the download of job job-cut's result was cut short \(10 of \d+ bytes\)/);
      expect(stdout.length).toBe(0);
      expect(code).toBe(1);
    });

    it('reports the route’s error envelope', async () => {
      const { code, stdout, stderr } = await run(['job-gone']);
      expect(stderr).toMatch(/answered 410 FET-1109: the result of job job-gone was deleted/);
      expect(stdout.length).toBe(0);
      expect(code).toBe(1);
    });
  });

  it('rejects a call without a job id or file', async () => {
    const { code, stderr } = await run([]);
    expect(stderr).toContain('Usage:');
    expect(code).toBe(1);
  });
});
