import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { freePort, startFetcherProcess } from '../helpers/fetcher-process.js';

const MAIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../dist/main.js');

/** What the compiled service says at boot about authentication, as an operator sees it. */
describe('authentication at boot', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-auth-boot-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start in production without AUTH_MODE, naming the variable', () => {
    const run = spawnSync(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', APP_ENC_KEY: TEST_MASTER_KEY, DATA_DIR: dataDir, PORT: '1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('AUTH_MODE: is required when NODE_ENV=production');
  });

  it('starts with AUTH_MODE=none outside production and warns that every caller is the operator', async () => {
    const port = await freePort();
    const fetcher = await startFetcherProcess(
      { APP_ENC_KEY: TEST_MASTER_KEY, DATA_DIR: dataDir, PORT: String(port), NODE_ENV: 'development' },
      port,
    );
    try {
      expect(fetcher.output()).toContain('AUTH_MODE=none: every caller acts as the operator');
      expect((await fetch(`${fetcher.url}/v1/management/connections`)).status).toBe(200);
    } finally {
      await fetcher.stop();
    }
  });
});
