import { hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShowResult } from '../../src/cli/show-result.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { LocalObjectStore } from '../../src/storage/local/local-object-store.js';
import { ResultStorageService, type StoredResult } from '../../src/storage/result-storage.service.js';

function capture(): { stream: PassThrough; bytes: () => Buffer } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, bytes: () => Buffer.concat(chunks) };
}

/** Independent of src/: HKDF-SHA256 of the master key, no salt, 32 bytes. */
const derive = (masterBase64: string, info: string) =>
  Buffer.from(hkdfSync('sha256', Buffer.from(masterBase64, 'base64'), Buffer.alloc(0), info, 32));
const hmacKeyOf = (master: string) => derive(master, 'fetcher-external-hmac-v1');
const encryptionKeyOf = (master: string) => derive(master, 'fetcher-storage-encryption-v1');

describe('show-result CLI: keyring and derived keys', () => {
  const KEY_1 = randomBytes(32).toString('base64');
  const KEY_2 = randomBytes(32).toString('base64');
  const plaintext = '{"crm":{"customers":[{"id":7,"name":"Ada"}]}}';
  let dir: string;
  let resultsDir: string;
  let api: Server;
  let apiUrl: string;
  let stored: StoredResult;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-show-keys-'));
    resultsDir = join(dir, 'results');
    // Sealed while version 1 was current.
    const service = new ResultStorageService(new LocalObjectStore(resultsDir), loadAppConfig({ DATA_DIR: dir, APP_ENC_KEY: KEY_1 }));
    const sink = await service.openSink('job-v1', 1024);
    await sink.write(plaintext);
    stored = await sink.finish();
    expect(stored.keyVersion).toBe('1');
    file = join(dir, 'downloaded.json');
    await writeFile(file, await new LocalObjectStore(resultsDir).read(stored.path));

    const job = {
      status: 'completed',
      resultPath: stored.path,
      resultHmac: stored.hmac,
      result: { sizeBytes: stored.sizeBytes, rowCount: 1, sha256: stored.sha256 },
    };
    const jobs: Record<string, unknown> = { 'job-v1': { ...job, resultKeyVersion: '1' }, 'job-legacy': job };
    api = createServer((req, res) => {
      const found = jobs[decodeURIComponent(req.url?.replace('/v1/fetcher/', '') ?? '')];
      res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(found ?? { code: 'FET-1001' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => api?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs with only `env` (plus where results and the API are): no master key unless given. */
  async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
    const out = capture();
    const err = capture();
    const code = await runShowResult(argv, {
      env: { DATA_DIR: dir, RESULTS_DIR: resultsDir, FETCHER_URL: apiUrl, ...env },
      stdout: out.stream,
      stderr: err.stream,
    });
    return { code, stdout: out.bytes(), stderr: err.bytes().toString() };
  }

  const noKeyFile = () => expect(readdirSync(dir).filter((name) => name.includes('app-enc-key'))).toEqual([]);

  it('opens and verifies a job with only the two derived keys (base64 flags), reading or writing no master key', async () => {
    const { code, stdout, stderr } = await run([
      'job-v1',
      '--hmac-key',
      hmacKeyOf(KEY_1).toString('base64'),
      '--encryption-key',
      encryptionKeyOf(KEY_1).toString('base64'),
    ]);
    expect(stdout.toString()).toBe(plaintext);
    expect(stderr).toContain(`HMAC: verified (${stored.hmac})`);
    expect(code).toBe(0);
    noKeyFile();
  });

  it('takes the derived keys as hex from FETCHER_RESULT_HMAC_KEY / FETCHER_RESULT_ENCRYPTION_KEY for a downloaded file', async () => {
    const env = {
      FETCHER_RESULT_HMAC_KEY: hmacKeyOf(KEY_1).toString('hex'),
      FETCHER_RESULT_ENCRYPTION_KEY: encryptionKeyOf(KEY_1).toString('hex'),
    };
    const { code, stdout, stderr } = await run(['--file', file, '--hmac', stored.hmac], env);
    expect(stdout.toString()).toBe(plaintext);
    expect(stderr).toContain('HMAC: verified');
    expect(code).toBe(0);
    noKeyFile();
  });

  it('refuses derived keys of another version, saying which version sealed the job', async () => {
    const { code, stdout, stderr } = await run([
      'job-v1',
      '--hmac-key',
      hmacKeyOf(KEY_2).toString('hex'),
      '--encryption-key',
      encryptionKeyOf(KEY_2).toString('hex'),
    ]);
    expect(stderr).toMatch(/failed authentication.*sealed with key version 1/);
    expect(stdout.length).toBe(0);
    expect(code).toBe(1);
  });

  it('refuses a single derived key or a malformed one without echoing it', async () => {
    const half = await run(['job-v1', '--hmac-key', hmacKeyOf(KEY_1).toString('hex')]);
    expect(half.stderr).toMatch(/give both derived keys/);
    expect(half.code).toBe(1);
    const short = await run([
      'job-v1',
      '--hmac-key',
      'c2VjcmV0LXRvby1zaG9ydA==',
      '--encryption-key',
      encryptionKeyOf(KEY_1).toString('hex'),
    ]);
    expect(short.stderr).toMatch(/--hmac-key: must be a 32-byte key/);
    expect(short.stderr).not.toContain('c2VjcmV0LXRvby1zaG9ydA==');
    expect(short.code).toBe(1);
  });

  it('opens a job with the keyring entry of its resultKeyVersion after a rotation', async () => {
    const { code, stdout, stderr } = await run(['job-v1'], { APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 });
    expect(stdout.toString()).toBe(plaintext);
    expect(stderr).toContain('opened with key version 1');
    expect(code).toBe(0);
  });

  it('names APP_ENC_KEY_1 when the job was sealed with version 1 and it is no longer configured', async () => {
    const { code, stdout, stderr } = await run(['job-v1'], { APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2' });
    expect(stderr).toMatch(/job job-v1 was sealed with key version 1, which is not configured: set APP_ENC_KEY_1/);
    expect(stderr).not.toContain(KEY_2);
    expect(stdout.length).toBe(0);
    expect(code).toBe(1);
  });

  it('tries every configured version for a job without a recorded version and for a file, or only --key-version', async () => {
    const keyring = { APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 };
    const legacy = await run(['job-legacy'], keyring);
    expect(legacy.stderr).toContain('opened with key version 1');
    expect(legacy.code).toBe(0);

    const offline = await run(['--file', file, '--hmac', stored.hmac], keyring);
    expect(offline.stdout.toString()).toBe(plaintext);
    expect(offline.code).toBe(0);

    const pinned = await run(['--file', file, '--key-version', '2'], keyring);
    expect(pinned.stderr).toMatch(/failed authentication.*tried key version 2/);
    expect(pinned.code).toBe(1);
  });

  it('prints exactly the two derived keys of the requested version, which then open the result', async () => {
    const keyring = { APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 };
    const current = await run(['--derive-keys'], keyring);
    expect(current.stdout.toString()).toBe(
      `FETCHER_RESULT_HMAC_KEY=${hmacKeyOf(KEY_2).toString('base64')}\nFETCHER_RESULT_ENCRYPTION_KEY=${encryptionKeyOf(KEY_2).toString('base64')}\n`,
    );
    expect(current.stderr).toContain('key version 2');
    expect(current.code).toBe(0);

    const old = await run(['--derive-keys', '--key-version', '1'], keyring);
    const printed = Object.fromEntries(
      old.stdout
        .toString()
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    expect(Buffer.from(printed.FETCHER_RESULT_HMAC_KEY as string, 'base64')).toEqual(hmacKeyOf(KEY_1));
    for (const output of [current.stdout.toString(), current.stderr, old.stdout.toString(), old.stderr]) {
      expect(output).not.toContain(KEY_1);
      expect(output).not.toContain(KEY_2);
    }
    const reopened = await run(['job-v1'], printed);
    expect(reopened.stdout.toString()).toBe(plaintext);
    expect(reopened.code).toBe(0);

    const missing = await run(['--derive-keys', '--key-version', '9'], keyring);
    expect(missing.stderr).toMatch(/set APP_ENC_KEY_9/);
    expect(missing.stdout.length).toBe(0);
    expect(missing.code).toBe(1);
  });

  it('without any key, refuses instead of generating a development key', async () => {
    const { code, stderr } = await run(['job-v1']);
    expect(stderr).toMatch(/APP_ENC_KEY is not set and there is no development key/);
    expect(code).toBe(1);
    expect(existsSync(join(dir, 'app-enc-key'))).toBe(false);
  });
});
