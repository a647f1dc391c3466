import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { QueryDeepPartialEntity } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRotateCredentials } from '../../src/cli/rotate-credentials.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { CONNECTION_ENTITY, type ConnectionRecord } from '../../src/datasource/connection.entity.js';
import { CredentialCipher } from '../../src/datasource/credential-cipher.service.js';
import { openDataSource } from '../../src/persistence/persistence.module.js';
import { storeOptions } from '../../src/bootstrap/store-schema.js';
import { WebhookSecretRotation } from '../../src/webhook/webhook-secret-rotation.js';
import { newWebhookSecret } from '../../src/webhook/webhook-signature.js';
import { WEBHOOK_ENTITY, type WebhookRecord } from '../../src/webhook/webhook.entity.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

async function rotate(argv: string[], env: NodeJS.ProcessEnv) {
  const out = capture();
  const err = capture();
  const code = await runRotateCredentials(argv, { env, stdout: out.stream, stderr: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('rotate-credentials CLI (npm run rotate-credentials)', () => {
  const KEY_1 = randomBytes(32).toString('base64');
  const KEY_2 = randomBytes(32).toString('base64');
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-rotate-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Connection rows written by a service whose current key is `key` of `version`. */
  async function seed(key: string, version: string, passwords: string[]): Promise<void> {
    const config = loadAppConfig({ DATA_DIR: dir, APP_ENC_KEY: key, APP_ENC_KEY_VERSION: version });
    const cipher = new CredentialCipher(config);
    const dataSource = await openDataSource(storeOptions(config));
    try {
      for (const password of passwords) {
        const now = new Date();
        await dataSource.getRepository<ConnectionRecord>(CONNECTION_ENTITY).insert({
          id: uuidv7(),
          productName: 'reporter',
          configName: `pg_${randomBytes(3).toString('hex')}`,
          type: 'POSTGRESQL',
          host: 'db.example.com',
          port: 5432,
          databaseName: 'x',
          schemaName: null,
          userName: 'u',
          passwordEncrypted: cipher.encrypt(password),
          sslMode: null,
          sslCaEncrypted: null,
          sslCertEncrypted: null,
          sslKeyEncrypted: cipher.encryptOptional('-----BEGIN PRIVATE KEY-----ssl-key-body'),
          encryptionKeyVersion: version,
          metadata: null,
          createdAt: now,
          updatedAt: now,
          deletedAt: null,
        } as QueryDeepPartialEntity<ConnectionRecord>);
      }
    } finally {
      await dataSource.destroy();
    }
  }

  const rotated = { DATA_DIR: '', APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 };

  /** Webhook registrations (one deleted) sealed by a service whose current key is `key` of `version`; returns id → secret. */
  async function seedWebhooks(key: string, version: string): Promise<Map<string, string>> {
    const config = loadAppConfig({ DATA_DIR: dir, APP_ENC_KEY: key, APP_ENC_KEY_VERSION: version });
    const cipher = new CredentialCipher(config);
    const dataSource = await openDataSource(storeOptions(config));
    const secrets = new Map<string, string>();
    try {
      for (const deletedAt of [null, new Date()]) {
        const id = uuidv7();
        const secret = newWebhookSecret();
        secrets.set(id, secret);
        await dataSource.getRepository<WebhookRecord>(WEBHOOK_ENTITY).insert({
          id,
          productName: 'reporter',
          url: 'https://hooks.example.com/fetcher',
          events: ['job.completed'],
          description: null,
          secretCiphertext: cipher.encrypt(secret),
          keyVersion: version,
          createdAt: new Date(),
          deletedAt,
        });
      }
    } finally {
      await dataSource.destroy();
    }
    return secrets;
  }

  /** What the store holds for each webhook, opened with the rotated environment's keys. */
  async function storedWebhookSecrets(): Promise<Map<string, { version: string; secret: string }>> {
    const config = loadAppConfig({ ...rotated, DATA_DIR: dir });
    const cipher = new CredentialCipher(config);
    const dataSource = await openDataSource(storeOptions(config));
    try {
      const rows = await dataSource.getRepository<WebhookRecord>(WEBHOOK_ENTITY).find();
      return new Map(
        rows.map((row) => [row.id, { version: row.keyVersion, secret: cipher.decrypt(row.secretCiphertext, row.keyVersion) }]),
      );
    } finally {
      await dataSource.destroy();
    }
  }

  it('re-seals webhook signing secrets under the current version, the secrets themselves unchanged, and names one it cannot open', async () => {
    const secrets = await seedWebhooks(KEY_1, '1');
    const env = { ...rotated, DATA_DIR: dir };

    const missingKey = await rotate([], { DATA_DIR: dir, APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2' });
    expect(missingKey.stdout).toContain(
      'webhook signing secrets: rewritten 0, already current 0, skipped (changed concurrently) 0, failed 2',
    );
    expect(missingKey.stderr).toMatch(/failed: webhook [0-9a-f-]{36}: .*set APP_ENC_KEY_1/);
    expect(missingKey.code).toBe(1);

    const dry = await rotate(['--dry-run'], env);
    expect(dry.stdout).toContain('webhook signing secrets: would rewrite 2, already current 0');
    expect([...(await storedWebhookSecrets()).values()].map((stored) => stored.version)).toEqual(['1', '1']);

    const first = await rotate([], env);
    expect(first.stdout).toContain(
      'webhook signing secrets: rewritten 2, already current 0, skipped (changed concurrently) 0, failed 0, still under an older version 0',
    );
    expect(first.code).toBe(0);
    const stored = await storedWebhookSecrets();
    for (const [id, secret] of secrets) expect(stored.get(id)).toEqual({ version: '2', secret });

    const second = await rotate([], env);
    expect(second.stdout).toContain('webhook signing secrets: rewritten 0, already current 2');
    expect(second.code).toBe(0);
    for (const output of [missingKey.stdout, missingKey.stderr, dry.stdout, first.stdout, first.stderr]) {
      for (const secret of [KEY_1, KEY_2, ...secrets.values()]) expect(output).not.toContain(secret);
    }
  });

  it('leaves a webhook secret rotated through the API meanwhile as that rotation wrote it', async () => {
    const [id] = [...(await seedWebhooks(KEY_1, '1')).keys()];
    const config = loadAppConfig({ ...rotated, DATA_DIR: dir });
    const cipher = new CredentialCipher(config);
    const dataSource = await openDataSource(storeOptions(config));
    const fresh = newWebhookSecret();
    try {
      const racing = new (class extends WebhookSecretRotation {
        protected override async replace(row: { id: string; secretCiphertext: string; keyVersion: string }, resealed: string) {
          // POST …/{id}/rotate-secret lands between the read and the write.
          if (row.id === id)
            await dataSource
              .getRepository<WebhookRecord>(WEBHOOK_ENTITY)
              .update(id, { secretCiphertext: cipher.encrypt(fresh), keyVersion: '2' });
          return super.replace(row, resealed);
        }
      })(dataSource, cipher);
      const report = await racing.rotate();
      expect(report).toMatchObject({ rewritten: 1, skippedConcurrent: 1, failed: [], remaining: 0 });
      const row = await dataSource.getRepository<WebhookRecord>(WEBHOOK_ENTITY).findOneByOrFail({ id: id as string });
      expect(cipher.decrypt(row.secretCiphertext, row.keyVersion)).toBe(fresh);
    } finally {
      await dataSource.destroy();
    }
  });

  it('refuses to run without APP_ENC_KEY or a development key, and generates none', async () => {
    const { code, stderr } = await rotate([], { DATA_DIR: dir });
    expect(code).toBe(1);
    expect(stderr).toMatch(/APP_ENC_KEY is not set and there is no development key/);
    expect(existsSync(join(dir, 'app-enc-key'))).toBe(false);
    expect(existsSync(join(dir, 'fetcher.sqlite'))).toBe(false);
  });

  it('uses an existing development key file as the current key', async () => {
    const devKey = randomBytes(32).toString('base64');
    writeFileSync(join(dir, 'app-enc-key'), `${devKey}\n`, { mode: 0o600 });
    await seed(KEY_1, '1', ['pw-a']);
    const { code, stdout } = await rotate([], { DATA_DIR: dir, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 });
    expect(stdout).toContain('rewritten: 1');
    expect(code).toBe(0);
  });

  it('reports counts without writing in a dry run, rewrites on the real run, and is a no-op the second time', async () => {
    await seed(KEY_1, '1', ['pw-a', 'pw-b']);
    const env = { ...rotated, DATA_DIR: dir };

    const dry = await rotate(['--dry-run'], env);
    expect(dry.stdout).toContain('dry run: nothing written; current key version 2');
    expect(dry.stdout).toContain('would rewrite: 2');
    expect(dry.code).toBe(0);

    const first = await rotate([], env);
    expect(first.stdout).toMatch(
      /rewritten: 2\nalready current: 0\nskipped \(changed concurrently\): 0\nfailed \(key version not configured or not matching\): 0\nstill under an older version: 0/,
    );
    expect(first.code).toBe(0);

    const second = await rotate([], env);
    expect(second.stdout).toContain('rewritten: 0\nalready current: 2');
    expect(second.code).toBe(0);
    for (const output of [dry.stdout, dry.stderr, first.stdout, first.stderr, second.stdout]) {
      for (const secret of [KEY_1, KEY_2, 'pw-a', 'pw-b', 'ssl-key-body']) expect(output).not.toContain(secret);
    }
  });

  it('exits 1 and names the variable to set when a stored version is not configured', async () => {
    await seed(KEY_1, '1', ['pw-a']);
    const { code, stdout, stderr } = await rotate([], { DATA_DIR: dir, APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2' });
    expect(stdout).toContain('failed (key version not configured or not matching): 1');
    expect(stdout).toContain('still under an older version: 1');
    expect(stderr).toMatch(/failed: connection [0-9a-f-]+ \(pg_[0-9a-f]+\): .*set APP_ENC_KEY_1/);
    expect(stderr).not.toContain(KEY_2);
    expect(code).toBe(1);

    // The dry run is the pre-flight check: the same failure, the same exit code.
    expect((await rotate(['--dry-run'], { DATA_DIR: dir, APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2' })).code).toBe(1);
  });

  it('rejects an unknown argument with the usage', async () => {
    const { code, stderr } = await rotate(['--force'], { ...rotated, DATA_DIR: dir });
    expect(stderr).toContain('Usage:');
    expect(code).toBe(1);
  });
});
