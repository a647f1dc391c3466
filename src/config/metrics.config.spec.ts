import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from './load-config.js';

const KEY = Buffer.alloc(32, 1).toString('base64');
const load = (env: Record<string, string>) =>
  loadAppConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'fetcher-config-')), APP_ENC_KEY: KEY, ...env });

describe('metrics configuration', () => {
  it('serves /metrics publicly on the API port and reads the stores at most every 5 s, unless told otherwise', () => {
    expect(load({}).metrics).toEqual({ storeRefreshMs: 5_000, port: undefined, host: undefined, access: 'public' });
    expect(load({ METRICS_STORE_REFRESH_SECONDS: '0', METRICS_ACCESS: 'operator' }).metrics).toMatchObject({
      storeRefreshMs: 0,
      access: 'operator',
    });
    expect(load({ METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }).metrics).toMatchObject({ port: 9464, host: '127.0.0.1' });
  });

  it.each([
    [{ METRICS_ACCESS: 'everyone' }, 'METRICS_ACCESS: must be one of public, operator'],
    [{ METRICS_STORE_REFRESH_SECONDS: '-1' }, 'METRICS_STORE_REFRESH_SECONDS'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '4006' }, 'METRICS_PORT: must differ from PORT (4006)'],
    [{ METRICS_PORT: '9000', PORT: '9000' }, 'METRICS_PORT: must differ from PORT (9000)'],
    [
      { FETCHER_ROLE: 'worker', DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://x', METRICS_PORT: '4007' },
      'METRICS_PORT: must differ from WORKER_HTTP_PORT (4007)',
    ],
    [{ METRICS_PORT: '9464', METRICS_ACCESS: 'operator' }, 'METRICS_ACCESS: operator applies to /metrics on the API port'],
    [{ METRICS_HOST: '127.0.0.1' }, 'METRICS_HOST: needs METRICS_PORT'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});
