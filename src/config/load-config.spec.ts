import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FetcherRole } from './fetcher-role.js';
import { ConfigError, loadAppConfig } from './load-config.js';

const KEY = Buffer.alloc(32, 1).toString('base64');
const tempDir = () => mkdtempSync(join(tmpdir(), 'fetcher-config-'));

describe('loadAppConfig', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const dataDir = tempDir();
    const config = loadAppConfig({ DATA_DIR: dataDir, APP_ENC_KEY: KEY });
    expect(config.role).toBe(FetcherRole.All);
    expect(config.http.port).toBe(4006);
    expect(config.database).toEqual({ kind: 'sqlite', path: join(dataDir, 'fetcher.sqlite') });
    expect(config.storage).toEqual({ kind: 'local', resultsDir: join(dataDir, 'results') });
    expect(config.redisUrl).toBeUndefined();
    expect(config.extraction.maxResultBytes).toBe(268435456);
    expect(config.jobs.dedupWindowSeconds).toBe(300);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ FETCHER_ROLE: 'scheduler' }, 'FETCHER_ROLE'],
    [{ ENGINE_MAX_RESULT_BYTES: String(256 * 1024 * 1024 + 1) }, 'ENGINE_MAX_RESULT_BYTES'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ S3_USE_SSL: 'maybe', S3_ENDPOINT: 'x', S3_BUCKET: 'bucket' }, 'S3_USE_SSL'],
    [{ APP_ENC_KEY: Buffer.alloc(16).toString('base64') }, 'APP_ENC_KEY'],
    [{ S3_ENDPOINT: 'minio' }, 'S3_BUCKET'],
    [{ FETCHER_ROLE: 'worker' }, 'REDIS_URL'],
    [{ DATASOURCE_MAIN_CONFIG_NAME: 'main_db', DATASOURCE_MAIN_HOST: 'db', DATASOURCE_MAIN_DATABASE: 'x' }, 'DATASOURCE_MAIN_TYPE'],
  ])('refuses %j, naming the variable', (env, variable) => {
    expect(() => loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, ...env })).toThrow(ConfigError);
    expect(() => loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, ...env })).toThrow(variable);
  });

  it('never prints the value of a secret or URL variable', () => {
    try {
      loadAppConfig({ DATA_DIR: tempDir(), DATABASE_URL: 'mysql://user:hunter2@db/x' });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
  });

  it('accepts a lower ENGINE_MAX_RESULT_BYTES as the size ceiling', () => {
    expect(loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, ENGINE_MAX_RESULT_BYTES: '1000' }).extraction.maxResultBytes).toBe(1000);
  });

  it('requires APP_ENC_KEY in production', () => {
    expect(() => loadAppConfig({ DATA_DIR: tempDir(), NODE_ENV: 'production' })).toThrow('APP_ENC_KEY');
  });

  it('generates a development key once, readable only by its owner, and reuses it', () => {
    const dataDir = tempDir();
    const generated: string[] = [];
    const first = loadAppConfig({ DATA_DIR: dataDir }, { onGeneratedKey: (path) => generated.push(path) });
    const second = loadAppConfig({ DATA_DIR: dataDir }, { onGeneratedKey: (path) => generated.push(path) });
    expect(generated).toEqual([join(dataDir, 'app-enc-key')]);
    expect(first.encryption.masterKey).toEqual(second.encryption.masterKey);
    expect(Buffer.from(readFileSync(join(dataDir, 'app-enc-key'), 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(statSync(join(dataDir, 'app-enc-key')).mode & 0o777).toBe(0o600);
  });

  it('configures S3 and the distributed roles from their variables', () => {
    const config = loadAppConfig({
      DATA_DIR: tempDir(),
      APP_ENC_KEY: KEY,
      FETCHER_ROLE: 'manager',
      DATABASE_URL: 'postgres://localhost/fetcher',
      REDIS_URL: 'redis://localhost:6379',
      S3_ENDPOINT: 'minio',
      S3_PORT: '9000',
      S3_USE_SSL: 'false',
      S3_BUCKET: 'results',
      S3_KEY_PREFIX: 'tenant/',
    });
    expect(config.role).toBe(FetcherRole.Manager);
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://localhost/fetcher' });
    expect(config.storage).toMatchObject({ kind: 's3', s3: { endPoint: 'minio', port: 9000, useSSL: false, bucket: 'results', keyPrefix: 'tenant/', partSizeBytes: 8 * 1024 * 1024 } });
  });
});
