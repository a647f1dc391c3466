import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { TEST_SECRETS } from '../helpers/test-secrets.js';

const MAIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../dist/main.js');
const ADMIN_KEY = TEST_SECRETS.LISTEN_ADDRESS_ADMIN_KEY;

/** This machine's addresses that other machines can reach (link-local left out: it needs a scope). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && !entry.internal && !entry.address.startsWith('fe80:'))
    .map((entry) => entry!.address);
}

/** Whether a TCP connection to address:port is accepted. */
function accepts(address: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host: address, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
  });
}

/**
 * Without authentication every caller is the operator, so by default only this machine may call:
 * the service as an operator starts it, seen from the network.
 */
describe('the listen address', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-listen-'));
  const external = externalAddresses();
  const ipv4 = external.find((address) => !address.includes(':'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = async (env: Record<string, string>): Promise<{ fetcher: FetcherProcess; port: number }> => {
    const port = await freePort();
    const fetcher = await startFetcherProcess({ APP_ENC_KEY: TEST_MASTER_KEY, DATA_DIR: dataDir, PORT: String(port), ...env }, port);
    return { fetcher, port };
  };

  it('needs an address other machines reach to tell loopback from the rest', () => {
    expect(ipv4, `no external IPv4 address among ${JSON.stringify(networkInterfaces())}`).toBeDefined();
  });

  it('AUTH_MODE=none without HOST listens on 127.0.0.1 only', async () => {
    const { fetcher, port } = await start({ LOG_LEVEL: 'log' });
    try {
      expect(fetcher.output()).toContain(`listening on http://127.0.0.1:${port}`);
      // The runtime it runs on, for whoever reads the log: the project's line under npm start and in the image.
      expect(fetcher.output()).toContain(`Node.js ${process.version}`);
      expect(await accepts('127.0.0.1', port)).toBe(true);
      for (const address of external) expect(await accepts(address, port), address).toBe(false);
    } finally {
      await fetcher.stop();
    }
  });

  it('AUTH_MODE=none with HOST=0.0.0.0 and no opt-in does not start, naming HOST and ALLOW_UNAUTHENTICATED_NETWORK', () => {
    for (const env of [{ HOST: '0.0.0.0' }, { HOST: '0.0.0.0', AUTH_MODE: 'none', NODE_ENV: 'production' }]) {
      const run = spawnSync(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', APP_ENC_KEY: TEST_MASTER_KEY, DATA_DIR: dataDir, PORT: '1', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/HOST: 0\.0\.0\.0 .*ALLOW_UNAUTHENTICATED_NETWORK=true/);
      expect(run.stdout).not.toContain('listening');
    }
  });

  it('ALLOW_UNAUTHENTICATED_NETWORK=true serves HOST=0.0.0.0 without authentication, and says so', async () => {
    const { fetcher, port } = await start({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED_NETWORK: 'true' });
    try {
      const answer = await fetch(`http://${ipv4}:${port}/v1/management/connections`);
      expect(answer.status).toBe(200);
      expect(fetcher.output()).toContain('AUTH_MODE=none on HOST=0.0.0.0 (ALLOW_UNAUTHENTICATED_NETWORK=true)');
    } finally {
      await fetcher.stop();
    }
  });

  it('with authentication listens on every interface by default, as a container needs, and asks callers for a credential', async () => {
    const { fetcher, port } = await start({ AUTH_MODE: 'apikey', AUTH_ADMIN_KEYS: ADMIN_KEY });
    try {
      expect((await fetch(`http://${ipv4}:${port}/health`)).status).toBe(200);
      expect((await fetch(`http://${ipv4}:${port}/v1/management/connections`)).status).toBe(401);
    } finally {
      await fetcher.stop();
    }
  });
});
