import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePgCatalogServer, type FakePgCatalogServer } from '../helpers/fake-pg-catalog-server.js';
import { runFetcherCli } from '../helpers/fetcher-cli.js';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { pgConnectionBody } from '../helpers/connection-bodies.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

const MiB = 1024 * 1024;
const ADMIN = `admin-${randomBytes(24).toString('base64url')}`;
/** The defaults this test runs with: nothing below is tuned for it. */
const DISCOVERY_DEADLINE_MS = 15_000;
const SCHEMA_DISCOVERIES_PER_MINUTE = 30;

/** A /proc/<pid>/status field in bytes: VmRSS (resident now) or VmHWM (peak since the last reset). */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

const mappedFields = (configName: string) => ({ mappedFields: { [configName]: { accounts: ['id'] } } });

interface Answer {
  readonly status: number;
  readonly body: { code?: string; message?: string; tables?: unknown[]; maxBytes?: number };
  readonly retryAfter: string | null;
  readonly ms: number;
}

/**
 * Issue 23, acceptance 3: schema discovery has the discipline of connection tests. A PostgreSQL
 * server that streams an endless catalog costs a bounded amount of memory and answers a FET code
 * within the discovery deadline; one key's burst of /schema calls is cut off by its per-principal
 * limit while another product's calls go on. Fetcher runs as its own process with its default
 * limits (the RSS is the process's own), private hosts allowed for the local servers.
 */
describe('discovery limits', () => {
  let fake: FakePgCatalogServer;
  let source: TempDatabase;
  let dataDir: string;
  let fetcher: FetcherProcess;
  const ids = { alphaFake: '', betaReal: '', betaFake: '' };
  const keys = { alpha: '', beta: '' };
  const issue = async (productName: string) =>
    ((await call('POST', '/v1/management/api-keys', ADMIN, { productName, name: 'discovery-limits' })).body as { key: string }).key;

  const call = async (method: 'GET' | 'POST', path: string, key: string, body?: unknown): Promise<Answer> => {
    const started = Date.now();
    const authorization = `Bearer ${key}`;
    const response =
      method === 'GET'
        ? await fetch(`${fetcher.url}${path}`, { headers: { authorization } })
        : await fetch(`${fetcher.url}${path}`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify(body ?? {}),
          });
    return {
      status: response.status,
      body: (await response.json()) as Answer['body'],
      retryAfter: response.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  };
  const schemaOf = (id: string, key: string) => call('GET', `/v1/management/connections/${id}/schema`, key);
  const register = async (key: string, configName: string, host: string, port: number, databaseName: string) => {
    const created = await call(
      'POST',
      '/v1/management/connections',
      key,
      pgConnectionBody({ host, port, name: databaseName, user: 'postgres' }, { configName, password: 'trust-auth-ignores-it' }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return (created.body as { id: string }).id;
  };

  beforeAll(async () => {
    // Its own loopback address: its per-host cap is not the real PostgreSQL's (127.0.0.1).
    fake = await startFakePgCatalogServer('127.0.0.2');
    source = await createTempDatabase('discovery_limits');
    await source.query('CREATE TABLE accounts (id int PRIMARY KEY, email text)');
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-discovery-limits-'));
    const port = await freePort();
    fetcher = await startFetcherProcess(
      {
        DATA_DIR: dataDir,
        APP_ENC_KEY: TEST_MASTER_KEY,
        PORT: String(port),
        AUTH_MODE: 'apikey',
        AUTH_ADMIN_KEYS: ADMIN,
        ALLOW_PRIVATE_HOSTS: 'true',
      },
      port,
    );
    keys.alpha = await issue('alpha');
    keys.beta = await issue('beta');
    const suffix = randomBytes(4).toString('hex');
    ids.alphaFake = await register(keys.alpha, `endless_${suffix}`, fake.host, fake.port, 'catalog');
    ids.betaFake = await register(keys.beta, `endless_b_${suffix}`, fake.host, fake.port, 'catalog');
    ids.betaReal = await register(keys.beta, `real_${suffix}`, source.host, source.port, source.name);
  }, 60_000);

  afterAll(async () => {
    await fetcher?.stop(5_000);
    await fake?.close();
    await source?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('an endless catalog answers 502 FET-1044 within the deadline, its connection closed', async () => {
    const answer = await schemaOf(ids.alphaFake, keys.alpha);
    expect(answer.status).toBe(502);
    expect(answer.body.code).toBe('FET-1044');
    expect(answer.body.message).toContain('bytes of schema catalog; discovery stopped and the connection was closed');
    expect(answer.body.maxBytes).toBe(4 * MiB);
    expect(answer.ms).toBeLessThan(DISCOVERY_DEADLINE_MS);
    await fake.idle();
    expect(fake.open).toBe(0);
  });

  it('50 parallel /schema calls from one key: past the limit 429 with Retry-After, the rest FET-1044; another product still answered; RSS grows < 64 MiB', async () => {
    // A key of its own: the whole minute's limit is this burst's.
    const storm = await issue('alpha');
    const pid = fetcher.child.pid as number;
    // Warm: the code paths of a successful discovery are loaded, then the peak is measured from here.
    expect((await schemaOf(ids.betaReal, keys.beta)).status).toBe(200);
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const before = memory(pid, 'VmRSS');

    const alpha = Array.from({ length: 50 }, () => schemaOf(ids.alphaFake, storm));
    const beta = Array.from({ length: 5 }, () => schemaOf(ids.betaReal, keys.beta));
    const [alphaAnswers, betaAnswers] = await Promise.all([Promise.all(alpha), Promise.all(beta)]);
    const grown = memory(pid, 'VmHWM') - before;

    const limited = alphaAnswers.filter((answer) => answer.status === 429);
    const discovered = alphaAnswers.filter((answer) => answer.status !== 429);
    expect(discovered).toHaveLength(SCHEMA_DISCOVERIES_PER_MINUTE);
    expect(limited).toHaveLength(50 - SCHEMA_DISCOVERIES_PER_MINUTE);
    for (const answer of limited) {
      expect(answer.body.code).toBe('FET-1070');
      expect(answer.body.message).toMatch(/^Schema discovery limit of 30 per minute reached/);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    for (const answer of discovered) {
      expect(answer.status).toBe(502);
      expect(answer.body.code).toBe('FET-1044');
      expect(answer.ms).toBeLessThan(DISCOVERY_DEADLINE_MS);
    }
    for (const answer of betaAnswers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.tables).toEqual([{ name: 'accounts', fields: ['id', 'email'] }]);
    }
    expect(grown, `peak RSS grew by ${(grown / MiB).toFixed(1)} MiB`).toBeLessThan(64 * MiB);
    await fake.idle();
    expect(fake.open).toBe(0);

    // validate-schema counts against the same limit.
    const { configName } = (await call('GET', `/v1/management/connections/${ids.alphaFake}`, storm)).body as { configName: string };
    const refused = await call('POST', '/v1/management/connections/validate-schema', storm, mappedFields(configName));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('FET-1070');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  }, 120_000);

  it('validate-schema answers an endless catalog with FET-1044', async () => {
    const betaName = (await call('GET', `/v1/management/connections/${ids.betaFake}`, keys.beta)).body as { configName: string };
    const tooLarge = await call('POST', '/v1/management/connections/validate-schema', keys.beta, mappedFields(betaName.configName));
    expect(tooLarge.status).toBe(502);
    expect(tooLarge.body.code).toBe('FET-1044');
    await fake.idle();
  });

  it('fetcher schema stops the same catalog at its --max-bytes with FET-1044 (exit 1)', async () => {
    const run = await runFetcherCli(['schema', `postgres://u:p@${fake.host}:${fake.port}/catalog`, '--max-bytes', String(MiB)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^fetcher schema: FET-1044 .*more than 1048576 bytes of schema catalog/m);
    await fake.idle();
  });
});
