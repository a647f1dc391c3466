import { spawn } from 'node:child_process';
import { createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShowResult } from '../../src/cli/show-result.js';
import { registerPostgres, startEmbeddedFetcher, waitForJob, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { ACCOUNTS_ROWS, SOURCE_FIXTURE_SQL } from '../helpers/source-fixtures.js';

const KEY_1 = randomBytes(32).toString('base64');
const KEY_2 = randomBytes(32).toString('base64');
const V1 = { APP_ENC_KEY: KEY_1 };
const V2_WITH_V1 = { APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 };
const V2_ONLY = { APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2' };

/** Independent of src/: HKDF-SHA256 of a master key (no salt, 32 bytes) and the sealed format. */
const derive = (master: string, info: string) => Buffer.from(hkdfSync('sha256', Buffer.from(master, 'base64'), Buffer.alloc(0), info, 32));
function openCredential(master: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', derive(master, 'fetcher-credentials-v1'), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}

/** The one-shot command as a user runs it: `fetcher rotate-credentials`. */
const FETCHER_CLI = fileURLToPath(new URL('../../dist/cli/fetcher.js', import.meta.url));

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

interface ConnectionRow {
  id: string;
  password_encrypted: string;
  ssl_ca_encrypted: string | null;
  ssl_cert_encrypted: string | null;
  ssl_key_encrypted: string | null;
  encryption_key_version: string;
  deleted_at: string | null;
}

describe('key rotation, end to end (PostgreSQL source, embedded store restarted on one data directory)', () => {
  const source = useTempDatabase('e2e_rotation');
  let dataDir: string;
  let fetcher: EmbeddedFetcher | undefined;
  const product = 'reporter';
  const secrets = {
    password: 'not-needed-with-trust-auth',
    ca: '-----BEGIN CERTIFICATE-----rot-CA',
    cert: '-----BEGIN CERTIFICATE-----rot-CERT',
    key: '-----BEGIN PRIVATE KEY-----rot-KEY',
  };
  const names = {
    full: `pg_full_${randomUUID().slice(0, 8)}`,
    plain: `pg_plain_${randomUUID().slice(0, 8)}`,
    gone: `pg_gone_${randomUUID().slice(0, 8)}`,
  };
  const ids = { full: '', plain: '', gone: '' };
  let jobV1 = '';
  let jobV1Hmac = '';

  beforeAll(async () => {
    await source().query(SOURCE_FIXTURE_SQL);
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-rotation-e2e-'));
  });

  afterAll(async () => {
    await fetcher?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function boot(env: Record<string, string>): Promise<EmbeddedFetcher> {
    await fetcher?.close();
    fetcher = await startEmbeddedFetcher(env, { dataDir });
    return fetcher;
  }

  const rows = async (app: EmbeddedFetcher): Promise<ConnectionRow[]> =>
    app.app.get(DataSource).query('SELECT * FROM connections ORDER BY id');
  const testConnection = (app: EmbeddedFetcher, id: string) =>
    app.http.post(`/v1/management/connections/${id}/test`).set('X-Product-Name', product);

  async function runJob(
    app: EmbeddedFetcher,
    correlationId: string,
  ): Promise<{ id: string; resultHmac?: string; resultKeyVersion?: unknown; status: string }> {
    const submitted = await app.http.post('/v1/fetcher').send({
      dataRequest: { mappedFields: { [names.full]: { accounts: ['id', 'email'] }, [names.plain]: { accounts: ['id'] } } },
      metadata: { source: product, correlationId },
    });
    expect(submitted.status).toBe(202);
    return waitForJob(app.http, submitted.body.jobId);
  }

  async function showResult(argv: string[], env: Record<string, string>, app: EmbeddedFetcher) {
    const address = app.app.getHttpServer().address() as AddressInfo;
    const out = capture();
    const err = capture();
    const code = await runShowResult(argv, {
      env: { DATA_DIR: dataDir, NODE_ENV: 'test', FETCHER_URL: `http://127.0.0.1:${address.port}`, ...env },
      stdout: out.stream,
      stderr: err.stream,
    });
    return { code, stdout: out.text(), stderr: err.text() };
  }

  it('writes password, CA, certificate and key under version 1, and seals a job with version 1', async () => {
    const app = await boot(V1);
    const full = await app.http
      .post('/v1/management/connections')
      .set('X-Product-Name', product)
      .send(
        pgConnectionBody(source(), {
          configName: names.full,
          password: secrets.password,
          ssl: { mode: 'disable', ca: secrets.ca, cert: secrets.cert, key: secrets.key },
        }),
      );
    expect(full.status).toBe(201);
    ids.full = full.body.id;
    ids.plain = (await registerPostgres(app.http, source(), { configName: names.plain, product })).id;
    ids.gone = (await registerPostgres(app.http, source(), { configName: names.gone, product })).id;
    expect((await app.http.delete(`/v1/management/connections/${ids.gone}`).set('X-Product-Name', product)).status).toBe(204);

    const stored = await rows(app);
    expect(stored).toHaveLength(3);
    expect(stored.map((row) => row.encryption_key_version)).toEqual(['1', '1', '1']);
    const fullRow = stored.find((row) => row.id === ids.full) as ConnectionRow;
    expect(openCredential(KEY_1, fullRow.ssl_key_encrypted as string)).toBe(secrets.key);

    const job = await runJob(app, 'sealed-v1');
    expect(job.status).toBe('completed');
    expect(job.resultKeyVersion).toBe('1');
    jobV1 = job.id;
    jobV1Hmac = job.resultHmac as string;
  });

  it('without version 1 configured and before the rotation, a connection test names APP_ENC_KEY_1 and never a key', async () => {
    const app = await boot(V2_ONLY);
    const response = await testConnection(app, ids.full);
    expect(response.status).toBe(500);
    expect(response.body.message).toMatch(/key version 1, which is not configured: set APP_ENC_KEY_1/);
    expect(JSON.stringify(response.body)).not.toContain(KEY_2);
  });

  it('with version 2 current and version 1 kept, reads the version 1 connections: test 200 and a job completes under version 2', async () => {
    const app = await boot(V2_WITH_V1);
    expect((await testConnection(app, ids.full)).status).toBe(200);
    expect((await testConnection(app, ids.plain)).status).toBe(200);
    const job = await runJob(app, 'sealed-v2-before-rotation');
    expect(job.status).toBe('completed');
    expect(job.resultKeyVersion).toBe('2');
    // Reading does not rewrite: the rows wait for the rotate command.
    expect((await rows(app)).map((row) => row.encryption_key_version)).toEqual(['1', '1', '1']);
  });

  it('rotate-credentials (with the service running) rewrites every row, live and deleted, under version 2; a second run changes nothing', async () => {
    const app = fetcher as EmbeddedFetcher;
    const env = { DATA_DIR: dataDir, NODE_ENV: 'test', ...V2_WITH_V1 };
    // Its own process, as an operator runs it beside the service. In this process its synchronous
    // SQLite busy wait would stall the service's event loop, and with it a transaction the service
    // still has open: a deadlock no deployment has.
    const run = (argv: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [FETCHER_CLI, 'rotate-credentials', ...argv], {
          cwd: dataDir,
          env: { PATH: process.env.PATH ?? '', ...env },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
        child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
      });

    const first = await run([]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(
      'rewritten: 3\nalready current: 0\nskipped (changed concurrently): 0\nfailed (key version not configured or not matching): 0\nstill under an older version: 0',
    );
    expect(first.stdout).toMatch(/completed job results sealed with older keys: 1 under version 1/);
    expect(first.code).toBe(0);

    const after = await rows(app);
    expect(after.map((row) => row.encryption_key_version)).toEqual(['2', '2', '2']);
    expect(after.some((row) => row.deleted_at !== null)).toBe(true);
    for (const row of after) {
      for (const sealed of [row.password_encrypted, row.ssl_ca_encrypted, row.ssl_cert_encrypted, row.ssl_key_encrypted]) {
        if (sealed === null || sealed === '') continue;
        expect(() => openCredential(KEY_1, sealed)).toThrow(/unsupported state|authenticate/i);
        expect(() => openCredential(KEY_2, sealed)).not.toThrow();
      }
    }
    const fullRow = after.find((row) => row.id === ids.full) as ConnectionRow;
    expect(
      [fullRow.password_encrypted, fullRow.ssl_ca_encrypted, fullRow.ssl_cert_encrypted, fullRow.ssl_key_encrypted].map((sealed) =>
        openCredential(KEY_2, sealed as string),
      ),
    ).toEqual([secrets.password, secrets.ca, secrets.cert, secrets.key]);
    expect(openCredential(KEY_2, (after.find((row) => row.id === ids.plain) as ConnectionRow).password_encrypted)).toBe(secrets.password);

    const second = await run([]);
    expect(second.stdout).toContain('rewritten: 0\nalready current: 3');
    expect(second.code).toBe(0);
    for (const output of [first.stdout, second.stdout])
      for (const secret of [KEY_1, KEY_2, ...Object.values(secrets)]) expect(output).not.toContain(secret);
  });

  it('with version 1 removed, the connections still test 200 and a job completes; the version 1 result opens only with its key', async () => {
    const app = await boot(V2_ONLY);
    expect((await testConnection(app, ids.full)).status).toBe(200);
    expect((await testConnection(app, ids.plain)).status).toBe(200);
    const job = await runJob(app, 'sealed-v2-after-rotation');
    expect(job.status).toBe('completed');
    expect(job.resultKeyVersion).toBe('2');
    expect((await app.http.get(`/v1/fetcher/${jobV1}`)).body.resultKeyVersion).toBe('1');

    await app.app.listen(0, '127.0.0.1');
    const current = await showResult([job.id], V2_ONLY, app);
    expect(current.stderr).toContain(`HMAC: verified (${job.resultHmac})`);
    expect(current.code).toBe(0);

    const withoutV1 = await showResult([jobV1], V2_ONLY, app);
    expect(withoutV1.stderr).toMatch(/sealed with key version 1, which is not configured: set APP_ENC_KEY_1/);
    expect(withoutV1.code).toBe(1);

    const keptV1 = await showResult([jobV1], V2_WITH_V1, app);
    expect(JSON.parse(keptV1.stdout)[names.full].accounts).toEqual(ACCOUNTS_ROWS.map(({ id, email }) => ({ id, email })));
    expect(keptV1.stderr).toContain(`HMAC: verified (${jobV1Hmac})`);
    expect(keptV1.stderr).toContain('opened with key version 1');
    expect(keptV1.code).toBe(0);

    // A consumer holds only the two derived keys of version 1, no master key at all.
    const consumer = await showResult(
      [
        jobV1,
        '--hmac-key',
        derive(KEY_1, 'fetcher-external-hmac-v1').toString('hex'),
        '--encryption-key',
        derive(KEY_1, 'fetcher-storage-encryption-v1').toString('base64'),
      ],
      {},
      app,
    );
    expect(consumer.stdout).toBe(keptV1.stdout);
    expect(consumer.stderr).toContain(`HMAC: verified (${jobV1Hmac})`);
    expect(consumer.code).toBe(0);
  });
});
