import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';
import { TEST_PG, useTempDatabase } from '../helpers/pg-database.js';
import { startPgStatementCounter, type PgStatementCounter } from '../helpers/pg-statement-counter.js';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const CONCURRENCY = 20;

interface Call {
  readonly path: string;
  readonly headers?: Record<string, string>;
}
interface Answer {
  readonly path: string;
  readonly status: number;
  readonly retryAfter?: string;
  readonly body: string;
}

/**
 * Sends every call, CONCURRENCY at a time over keep-alive connections, and returns the answers in
 * order. With `spreadMs`, call i leaves no earlier than i / n of it after the start: the load an
 * acceptance "in 10 s" describes, rather than as fast as this machine goes.
 */
async function flood(port: number, calls: readonly Call[], spreadMs = 0): Promise<Answer[]> {
  const start = Date.now();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const answers: Answer[] = new Array(calls.length);
  let next = 0;
  const send = (call: Call) =>
    new Promise<Answer>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: call.path, headers: call.headers, agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ path: call.path, status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  const lane = async () => {
    while (next < calls.length) {
      const index = next++;
      const wait = start + (index * spreadMs) / calls.length - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      answers[index] = await send(calls[index]);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  } finally {
    agent.destroy();
  }
  return answers;
}

/** Waits until the store has been quiet for `quietMs`: the boot's migrations and first sweeps are over. */
async function settled(counter: PgStatementCounter, quietMs = 1_000): Promise<void> {
  let seen = -1;
  while (seen !== counter.statements.length) {
    seen = counter.statements.length;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
}

/**
 * Issue 23, acceptance 4, against the built app on a PostgreSQL store reached through a proxy that
 * counts every statement: anonymous probes, scrapes and a flood of one unknown key cost the store
 * almost nothing. The recovery and retention sweeps are pushed out of the window (their own
 * intervals), so what is counted is what the requests caused.
 */
describe('anonymous work costs the store (almost) nothing (AUTH_MODE=apikey, PostgreSQL store)', () => {
  const store = useTempDatabase('e2e_anonymous_load');
  let counter: PgStatementCounter;
  let fetcher: FetcherProcess;
  let dataDir: string;

  beforeAll(async () => {
    counter = await startPgStatementCounter(TEST_PG.port, TEST_PG.host);
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-anonymous-load-'));
    const port = await freePort();
    fetcher = await startFetcherProcess(
      {
        PORT: String(port),
        DATA_DIR: dataDir,
        APP_ENC_KEY: TEST_MASTER_KEY,
        DATABASE_URL: `postgres://${TEST_PG.user}@127.0.0.1:${counter.port}/${store().name}`,
        AUTH_MODE: 'apikey',
        AUTH_ADMIN_KEYS: ADMIN_KEY,
        JOB_RECOVERY_INTERVAL_MS: '3600000',
        RESULT_SWEEP_INTERVAL_MS: '86400000',
      },
      port,
    );
    await settled(counter);
  }, 60_000);

  afterAll(async () => {
    await fetcher?.stop();
    await counter?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const port = () => Number(new URL(fetcher.url).port);

  it('answers 1,000 /readyz and 1,000 /metrics with one probe a second and one gauge read per 5 s (≤ 15 statements in 10 s)', async () => {
    counter.reset();
    const calls: Call[] = Array.from({ length: 2_000 }, (_, index) => ({ path: index % 2 === 0 ? '/readyz' : '/metrics' }));
    const started = Date.now();
    // Spread over 9 s, so the flood as a whole (its stragglers included) fits in the 10 s.
    const answers = await flood(port(), calls, 9_000);
    const elapsedMs = Date.now() - started;
    const statements = [...counter.statements];

    expect(answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.path} ${answer.status}`)).toEqual([]);
    expect(answers.filter((answer) => answer.path === '/readyz').every((answer) => JSON.parse(answer.body).status === 'ready')).toBe(true);
    expect(valueOf(parsePrometheusText(answers[1].body), 'fetcher_jobs', { status: 'pending' })).toBe(0);
    // At most one readiness probe (SELECT 1) per second begun, and one read of the two store gauges
    // (jobs by status, outbox backlog) per 5 s begun: 10 + 2 × 2 = 14 for any flood of up to 10 s.
    const probes = statements.filter((statement) => statement === 'SELECT 1');
    const gaugeReads = statements.filter((statement) => /count\(\*\)/i.test(statement));
    expect(probes.length + gaugeReads.length, statements.join('\n')).toBe(statements.length);
    expect(probes.length).toBeLessThanOrEqual(Math.floor(elapsedMs / 1_000) + 1);
    expect(gaugeReads.length).toBeLessThanOrEqual(2 * (Math.floor(elapsedMs / 5_000) + 1));
    if (elapsedMs <= 10_000) expect(statements.length).toBeLessThanOrEqual(15);
    console.log(`[anonymous-load] 2,000 /readyz + /metrics in ${elapsedMs} ms: ${statements.length} store statements`);
  }, 60_000);

  it('answers 1,000 requests with one unknown fet_ key from a handful of lookups, and ends in 429s', async () => {
    counter.reset();
    const unknownKey = `fet_${randomBytes(32).toString('base64url')}`;
    const calls: Call[] = Array.from({ length: 1_000 }, () => ({
      path: '/v1/fetcher',
      headers: { Authorization: `Bearer ${unknownKey}` },
    }));
    const answers = await flood(port(), calls);
    const statements = [...counter.statements];

    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(3);
    expect(statements.every((statement) => statement.includes('api_keys'))).toBe(true);
    const refused = answers.filter((answer) => answer.status === 401);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(refused.length + limited.length).toBe(1_000);
    expect(refused.length).toBeLessThanOrEqual(60);
    expect(answers.slice(-900).every((answer) => answer.status === 429)).toBe(true);
    expect(JSON.parse(limited[0].body)).toMatchObject({ code: 'FET-1070' });
    expect(limited.every((answer) => Number(answer.retryAfter) > 0)).toBe(true);

    const samples = parsePrometheusText((await flood(port(), [{ path: '/metrics' }]))[0].body);
    expect(valueOf(samples, 'fetcher_auth_failures_total', { method: 'apikey', reason: 'unknown_key' })).toBe(refused.length + 1);
    expect(valueOf(samples, 'fetcher_auth_throttled_total', { method: 'apikey' })).toBe(limited.length - 1);
    console.log(
      `[anonymous-load] 1,000 requests with an unknown key: ${statements.length} store statement(s), ${refused.length} × 401, ${limited.length} × 429`,
    );
  }, 60_000);
});
