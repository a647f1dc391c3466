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
    expect(config.postgresReadPath).toBe('copy');
  });

  it('bounds schema discovery and the schema cache by bytes, and discoveries per principal, by default', () => {
    const config = loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY });
    expect(config.schemaDiscoveryMaxBytes).toBe(4 * 1024 * 1024);
    expect(config.schemaCache).toEqual({ maxBytes: 32 * 1024 * 1024, maxEntryBytes: 4 * 1024 * 1024 });
    expect(config.rateLimits.schemaDiscoveriesPerPrincipalPerMinute).toBe(30);
    const set = loadAppConfig({
      DATA_DIR: tempDir(),
      APP_ENC_KEY: KEY,
      SCHEMA_DISCOVERY_MAX_BYTES: '1048576',
      SCHEMA_CACHE_MAX_BYTES: '0',
      SCHEMA_DISCOVERY_PRINCIPAL_RATE_LIMIT: '5',
    });
    expect(set.schemaDiscoveryMaxBytes).toBe(1048576);
    expect(set.schemaCache.maxBytes).toBe(0);
    expect(set.rateLimits.schemaDiscoveriesPerPrincipalPerMinute).toBe(5);
  });

  it('reads POSTGRES_READ_PATH', () => {
    expect(loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, POSTGRES_READ_PATH: 'cursor' }).postgresReadPath).toBe('cursor');
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
    [{ POSTGRES_READ_PATH: 'binary' }, 'POSTGRES_READ_PATH'],
    [{ SCHEMA_DISCOVERY_MAX_BYTES: '1024' }, 'SCHEMA_DISCOVERY_MAX_BYTES'],
    [{ SCHEMA_DISCOVERY_PRINCIPAL_RATE_LIMIT: '0' }, 'SCHEMA_DISCOVERY_PRINCIPAL_RATE_LIMIT'],
    [{ SCHEMA_CACHE_MAX_BYTES: '-1' }, 'SCHEMA_CACHE_MAX_BYTES'],
    [{ SCHEMA_CACHE_MAX_ENTRY_BYTES: 'lots' }, 'SCHEMA_CACHE_MAX_ENTRY_BYTES'],
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
    expect(() => loadAppConfig({ DATA_DIR: tempDir(), NODE_ENV: 'production', AUTH_MODE: 'none' })).toThrow('APP_ENC_KEY');
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
    expect(config.storage).toMatchObject({
      kind: 's3',
      s3: { endPoint: 'minio', port: 9000, useSSL: false, bucket: 'results', keyPrefix: 'tenant/', partSizeBytes: 8 * 1024 * 1024 },
    });
  });

  describe('authentication', () => {
    const load = (env: Record<string, string>) => loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, ...env });
    const ADMIN = 'a'.repeat(32);

    it('is none outside production, and must be chosen in production', () => {
      expect(load({}).auth).toEqual({ mode: 'none' });
      expect(() => load({ NODE_ENV: 'production' })).toThrow('AUTH_MODE: is required when NODE_ENV=production');
      expect(load({ NODE_ENV: 'production', AUTH_MODE: 'none' }).auth).toEqual({ mode: 'none' });
    });

    it('reads operator keys in apikey mode and refuses none or short ones', () => {
      expect(load({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ` ${ADMIN} ,${'b'.repeat(24)}` }).auth).toEqual({
        mode: 'apikey',
        adminKeys: [ADMIN, 'b'.repeat(24)],
      });
      expect(() => load({ AUTH_MODE: 'apikey' })).toThrow('AUTH_ADMIN_KEYS: is required');
      expect(() => load({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: 'short' })).toThrow('AUTH_ADMIN_KEYS: every key must be at least 24');
    });

    it('needs one key source, an issuer and an audience in jwt mode', () => {
      const jwt = {
        AUTH_MODE: 'jwt',
        AUTH_JWKS_URL: 'http://127.0.0.1:1/jwks',
        AUTH_JWT_ISSUER: 'https://idp',
        AUTH_JWT_AUDIENCE: 'fetcher, fetcher-admin',
      };
      expect(load(jwt).auth).toEqual({
        mode: 'jwt',
        jwt: {
          jwksUrl: jwt.AUTH_JWKS_URL,
          publicKeyPem: undefined,
          issuer: 'https://idp',
          audiences: ['fetcher', 'fetcher-admin'],
          productsClaim: 'products',
          rolesClaim: 'roles',
          clockToleranceSeconds: 5,
        },
      });
      expect(() => load({ ...jwt, AUTH_JWKS_URL: '' })).toThrow('AUTH_JWKS_URL: set exactly one');
      expect(() => load({ ...jwt, AUTH_JWT_PUBLIC_KEY: 'x' })).toThrow('AUTH_JWKS_URL: set exactly one');
      expect(() => load({ ...jwt, AUTH_JWT_ISSUER: '' })).toThrow('AUTH_JWT_ISSUER');
      expect(() => load({ ...jwt, AUTH_JWT_AUDIENCE: ' , ' })).toThrow('AUTH_JWT_AUDIENCE');
      expect(() => load({ ...jwt, NODE_ENV: 'production' })).toThrow('AUTH_JWKS_URL: must be an https:// URL');
      expect(() => load({ ...jwt, AUTH_JWKS_URL: '', AUTH_JWT_PUBLIC_KEY: 'not a key' })).toThrow(
        'AUTH_JWT_PUBLIC_KEY: must be a PEM public key',
      );
    });
  });

  describe('listen address', () => {
    const load = (env: Record<string, string>) => loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, ...env });
    const ADMIN = 'a'.repeat(32);

    it('is 127.0.0.1 without authentication and every interface with it, unless HOST says otherwise', () => {
      expect(load({}).http).toMatchObject({ host: '127.0.0.1', unauthenticatedNetwork: false });
      expect(load({ AUTH_MODE: 'none' }).http.host).toBe('127.0.0.1');
      expect(load({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN }).http).toMatchObject({ host: '0.0.0.0', unauthenticatedNetwork: false });
      expect(load({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN, HOST: '10.1.2.3' }).http.host).toBe('10.1.2.3');
    });

    it.each(['127.0.0.1', '127.8.9.10', 'localhost', 'LocalHost.', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
      'serves AUTH_MODE=none on the loopback address %s',
      (host) => {
        expect(load({ HOST: host }).http).toMatchObject({ host, unauthenticatedNetwork: false });
      },
    );

    it.each(['0.0.0.0', '::', '192.168.1.5', 'fd00::2', '::ffff:10.0.0.1', 'db.example.com', 'localhost.example.com'])(
      'refuses AUTH_MODE=none on %s without ALLOW_UNAUTHENTICATED_NETWORK, naming both variables',
      (host) => {
        const envs: Record<string, string>[] = [
          { HOST: host },
          { HOST: host, AUTH_MODE: 'none', NODE_ENV: 'production' },
          { HOST: host, ALLOW_UNAUTHENTICATED_NETWORK: 'false' },
        ];
        for (const env of envs) {
          expect(() => load(env)).toThrow(ConfigError);
          expect(() => load(env)).toThrow(/HOST: .*ALLOW_UNAUTHENTICATED_NETWORK=true/);
        }
      },
    );

    it('serves AUTH_MODE=none on another address when ALLOW_UNAUTHENTICATED_NETWORK=true, marked for the warning', () => {
      expect(load({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED_NETWORK: 'true' }).http).toMatchObject({
        host: '0.0.0.0',
        unauthenticatedNetwork: true,
      });
      // With authentication the opt-in changes nothing: there is nothing to warn about.
      expect(
        load({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN, HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED_NETWORK: 'true' }).http
          .unauthenticatedNetwork,
      ).toBe(false);
      expect(() => load({ ALLOW_UNAUTHENTICATED_NETWORK: 'maybe' })).toThrow('ALLOW_UNAUTHENTICATED_NETWORK: must be true or false');
    });
  });

  describe('keyring', () => {
    const OLD = Buffer.alloc(32, 9).toString('base64');

    it('holds the current key under its version and older ones as APP_ENC_KEY_<version>', () => {
      const config = loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: OLD });
      expect([...config.encryption.keyring.keys()].sort()).toEqual(['1', '2']);
      expect(config.encryption.keyring.get('2')).toEqual(Buffer.from(KEY, 'base64'));
      expect(config.encryption.keyring.get('1')).toEqual(Buffer.from(OLD, 'base64'));
    });

    it('refuses a bad old key and a current version given twice with another key, naming the variable', () => {
      expect(() => loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, APP_ENC_KEY_1: 'c2hvcnQ=' })).toThrow(
        'APP_ENC_KEY_1: must decode to at least 32 bytes',
      );
      expect(() => loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, APP_ENC_KEY_VERSION: '3', APP_ENC_KEY_3: OLD })).toThrow(
        'APP_ENC_KEY_3: differs from APP_ENC_KEY',
      );
      expect(loadAppConfig({ DATA_DIR: tempDir(), APP_ENC_KEY: KEY, APP_ENC_KEY_1: KEY }).encryption.keyring.size).toBe(1);
    });
  });
});
