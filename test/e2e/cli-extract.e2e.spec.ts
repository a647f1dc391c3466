import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FETCHER_BIN, runCommandLine, runFetcherCli, summaryOf } from '../helpers/fetcher-cli.js';
import {
  registerMariaDb,
  registerPostgres,
  startEmbeddedFetcher,
  TEST_MASTER_KEY,
  waitForJob,
  type EmbeddedFetcher,
} from '../helpers/fetcher-app.js';
import { createTempMariaDatabase, type TempMariaDatabase } from '../helpers/mariadb-database.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg-database.js';

/** Several tables on two engines, filters on some, `*` on others: values of every kind the mapping cares about. */
const DATA_REQUEST = {
  mappedFields: {
    pg_src: { accounts: ['*'], 'accounting.invoices': ['id', 'amount', 'due'], events: ['*'] },
    maria_src: { orders: ['*'], customers: ['id', 'name'] },
  },
  filters: {
    pg_src: { accounts: { id: { gte: [2] } }, 'accounting.invoices': { amount: { gt: [10] } } },
    maria_src: { orders: { total: { gt: ['0'] } }, customers: { id: { in: [1, 2, 3] } } },
  },
};

/** supertest's parser for a body kept as bytes (it hands over the node response it reads from). */
const raw = (response: unknown, done: (error: Error | null, body: Buffer) => void) => {
  const stream = response as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('fetcher extract writes what the service stores', () => {
  let pg: TempDatabase;
  let maria: TempMariaDatabase;
  let fetcher: EmbeddedFetcher;
  let dir: string;
  let stored: Buffer;
  let job: Awaited<ReturnType<typeof waitForJob>>;
  let env: Record<string, string>;
  let requestFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-cli-extract-'));
    [pg, maria] = await Promise.all([createTempDatabase('cli_extract'), createTempMariaDatabase('cli_extract')]);
    await pg.query(`
      CREATE TABLE accounts (id bigint PRIMARY KEY, email text, balance numeric(38,10), opened timestamptz, active boolean, tags text[], doc jsonb, raw bytea);
      INSERT INTO accounts VALUES
        (1, 'one@example.com', 1.5, '2026-01-01 00:00:00+00', true, '{a}', '{"k": 1}', '\\x00'),
        (9007199254740993, 'big€😀@example.com', 12345678901234567890.0123456789, '2026-01-02 03:04:05.123456+02', false, '{"x,y",NULL}', '{"n": 12345678901234567890}', '\\xdeadbeef'),
        (3, '', NULL, NULL, NULL, NULL, NULL, NULL);
      CREATE SCHEMA accounting;
      CREATE TABLE accounting.invoices (id int PRIMARY KEY, account_id bigint, amount numeric(12,2), due date, note text);
      INSERT INTO accounting.invoices VALUES (10, 1, 42.00, '2026-03-01', 'a "quoted" note'), (11, 3, 5.00, '2026-03-02', NULL), (12, 3, 10.01, '2026-03-03', E'tab\\there');
      CREATE TABLE events (id int PRIMARY KEY, at timestamp(3));`);
    await maria.query(`
      CREATE TABLE orders (id INT PRIMARY KEY, customer_id BIGINT UNSIGNED, total DECIMAL(38,10), placed DATETIME(6), doc JSON, raw VARBINARY(8), flags BIT(8));
      INSERT INTO orders VALUES
        (11, 18446744073709551615, '1234567890123456789012345678.0123456789', '2026-01-02 03:04:05.123456', '{"tags": ["a", "b"]}', x'00ff', b'10000001'),
        (10, 2, '0.0000000001', '2026-01-01 00:00:00.000001', NULL, NULL, b'0');
      CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(50), secret TEXT);
      INSERT INTO customers VALUES (1, 'Zoë', 's1'), (2, '日本', 's2');`);
    fetcher = await startEmbeddedFetcher();
    await registerPostgres(fetcher.http, pg, { configName: 'pg_src', product: 'reporter' });
    await registerMariaDb(fetcher.http, maria, { configName: 'maria_src', product: 'reporter' });

    const submitted = await fetcher.http.post('/v1/fetcher').send({ dataRequest: DATA_REQUEST, metadata: { source: 'reporter' } });
    expect(submitted.status).toBe(202);
    job = await waitForJob(fetcher.http, submitted.body.jobId);
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    const download = await fetcher.http.get(`/v1/fetcher/${job.id}/result`).buffer(true).parse(raw);
    expect(download.status).toBe(200);
    stored = download.body as Buffer;

    env = {
      // The URLs come from the environment (env:VAR), as the help advises for a URL with a password.
      PG_URL: pg.url,
      MARIA_URL: `mysql://${maria.user}${maria.password ? `:${encodeURIComponent(maria.password)}` : ''}@${maria.host}:${maria.port}/${maria.name}`,
    };
    requestFile = join(dir, 'request.json');
    writeFileSync(requestFile, JSON.stringify(DATA_REQUEST));
  });

  afterAll(async () => {
    await fetcher?.close();
    await Promise.all([pg?.drop(), maria?.drop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const extract = (...args: string[]) =>
    runFetcherCli(
      ['extract', '--request', requestFile, '--datasource', 'pg_src=env:PG_URL', '--datasource', 'maria_src=env:MARIA_URL', ...args],
      { env },
    );

  it('writes plaintext byte-identical to GET /v1/fetcher/{id}/result, and sums it up as the job does', async () => {
    const out = join(dir, 'result.json');
    const run = await extract('--out', out);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out).equals(stored)).toBe(true);
    const summary = summaryOf(run);
    expect(summary).toMatchObject({ sha256: job.result?.sha256, sizeBytes: job.result?.sizeBytes, rowCounts: job.result?.rowCounts, out });
    expect(summary.rowCounts).toEqual({
      maria_src: { customers: 2, orders: 2 },
      pg_src: { 'accounting.invoices': 2, accounts: 2, events: 0 },
    });
    // Off a terminal, no progress display: the summary is all stderr says.
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // Only the final file is left: the temporary one was renamed into place.
    expect(readdirSync(dir).sort()).toEqual(['request.json', 'result.json']);
  });

  it('writes the same bytes to stdout, and takes the request from stdin as a whole job body', async () => {
    const run = await runFetcherCli(
      ['extract', '--request', '-', '--datasource', 'pg_src=env:PG_URL', '--datasource', 'maria_src=env:MARIA_URL'],
      {
        env,
        stdin: JSON.stringify({ dataRequest: DATA_REQUEST, metadata: { source: 'reporter' } }),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.equals(stored)).toBe(true);
  });

  it('reads a datasource the command line does not name from FETCHER_DATASOURCE_<NAME>', async () => {
    const run = await runFetcherCli(
      ['extract', '--request', requestFile, '--datasource', 'pg_src=env:PG_URL', '--json', '--out', join(dir, 'env.json')],
      {
        env: { ...env, FETCHER_DATASOURCE_MARIA_SRC: env.MARIA_URL },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ sha256: job.result?.sha256 });
    rmSync(join(dir, 'env.json'));
  });

  it('with --seal writes the sealed object the service stores, which `fetcher result --file … --hmac …` opens', async () => {
    const keyFile = join(dir, 'master.key');
    writeFileSync(keyFile, `${TEST_MASTER_KEY}\n`);
    const out = join(dir, 'result.sealed');
    const run = await extract('--out', out, '--seal', '--master-key-file', keyFile);
    expect(run.code, run.stderr).toBe(0);
    const summary = summaryOf(run);
    // The same key as the service's: the same HMAC as the job's.
    expect(summary).toMatchObject({ hmac: job.resultHmac, sha256: job.result?.sha256 });
    expect(readFileSync(out, 'utf8')).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);

    const resultEnv = { APP_ENC_KEY: TEST_MASTER_KEY, DATA_DIR: join(dir, 'no-data-dir') };
    const opened = await runFetcherCli(['result', '--file', out, '--hmac', summary.hmac as string], { env: resultEnv });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout.equals(stored)).toBe(true);
    expect(opened.stderr).toMatch(/HMAC: verified/);
    const forged = await runFetcherCli(['result', '--file', out, '--hmac', '0'.repeat(64)], { env: resultEnv });
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/HMAC: MISMATCH/);
    rmSync(out);
  });

  it('on a terminal shows progress on stderr (rows, MiB, each table and its status), and none with --quiet', async () => {
    // util-linux `script` gives the command a pseudo-terminal of 40 rows; what it prints arrives on stdout.
    const command = (extra: string) =>
      `stty rows 40 cols 160; ${JSON.stringify(process.execPath)} ${JSON.stringify(FETCHER_BIN)} extract --request ${JSON.stringify(requestFile)} ` +
      `--datasource pg_src=env:PG_URL --datasource maria_src=env:MARIA_URL --out ${JSON.stringify(join(dir, 'tty.json'))} ${extra}`;
    const onTerminal = await runCommandLine('script', ['-qec', command(''), '/dev/null'], env);
    expect(onTerminal.code, onTerminal.stderr).toBe(0);
    const shown = onTerminal.stdout.toString();
    expect(shown).toMatch(/\d+ rows · [\d.]+ MiB · [\d,]+ rows\/s · [\d.]+ MiB\/s · 5\/5 tables/);
    expect(shown).toMatch(/pg_src\.accounting\.invoices +done +2/);
    expect(shown).toMatch(/maria_src\.orders +done +2/);
    const quiet = await runCommandLine('script', ['-qec', command('--quiet'), '/dev/null'], env);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout.toString()).not.toMatch(/tables ·|rows\/s/);
    expect(quiet.stdout.toString()).toMatch(/"sha256":/);
    rmSync(join(dir, 'tty.json'));
  });
});
