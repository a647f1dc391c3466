import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/fetcher-process.js';
import { runFetcherCli, type CliRun } from '../helpers/fetcher-cli.js';
import { useTempDatabase } from '../helpers/pg-database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const SECRET = 'Sekr3t-pa55-for-the-cli';
const REQUEST = { mappedFields: { pg: { accounts: ['id', 'name'] } } };

/** One line on stderr, naming what is wrong, and never the password or a stack. */
function expectOneLine(run: CliRun, pattern: RegExp): void {
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toContain(SECRET);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout.length).toBe(0);
}

describe('fetcher extract refuses bad input and never hangs on a server', () => {
  const pg = useTempDatabase('cli_failures');
  let dir: string;
  let requestFile: string;
  let silentServer: Server;
  let silentPort: number;
  let catalogSilence: TcpProxy;
  const held: Socket[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-cli-failures-'));
    await pg().query(`CREATE TABLE accounts (id int PRIMARY KEY, name text);
      INSERT INTO accounts SELECT g, repeat('n', 100) FROM generate_series(1, 1000) g;`);
    requestFile = join(dir, 'request.json');
    writeFileSync(requestFile, JSON.stringify(REQUEST));
    // Accepts the TCP connection and never says a word: no greeting, no TLS answer, nothing.
    silentServer = createServer((socket) => void held.push(socket.on('error', () => undefined)));
    silentPort = await freePort();
    await new Promise<void>((resolve) => silentServer.listen(silentPort, '127.0.0.1', resolve));
    catalogSilence = await startTcpProxy(pg().port, pg().host, { silenceWhen: (chunk) => chunk.includes('pg_namespace') });
  });

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silentServer?.close(resolve));
    await catalogSilence?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (port = pg().port) => `postgres://${pg().user}:${SECRET}@${pg().host}:${port}/${pg().name}`;
  const extract = (args: string[], env: Record<string, string> = {}) =>
    runFetcherCli(['extract', ...args], { env: { PG_URL: url(), ...env } });
  const withRequest = (...args: string[]) => extract(['--request', requestFile, '--datasource', 'pg=env:PG_URL', ...args]);

  describe('usage errors exit 2', () => {
    it('an unknown flag, named', async () => {
      const run = await withRequest('--frobnicate');
      expect(run.code).toBe(2);
      expectOneLine(run, /^fetcher extract: unknown option '--frobnicate'/);
    });

    it('no --request at all', async () => {
      const run = await extract(['--datasource', 'pg=env:PG_URL']);
      expect(run.code).toBe(2);
      expectOneLine(run, /required option '--request <file\|->' not specified/);
    });

    it('a request file without mappedFields, naming the field', async () => {
      const file = join(dir, 'no-mapped-fields.json');
      writeFileSync(file, JSON.stringify({ filters: {} }));
      const run = await extract(['--request', file, '--datasource', 'pg=env:PG_URL']);
      expect(run.code).toBe(2);
      expectOneLine(run, /^fetcher extract: FET-0401 mappedFields must be an object of datasources$/);
    });

    it('a request file that is not there, or not JSON', async () => {
      const missing = await extract(['--request', join(dir, 'nowhere.json'), '--datasource', 'pg=env:PG_URL']);
      expect(missing.code).toBe(2);
      expectOneLine(missing, /--request: cannot read .*nowhere\.json \(ENOENT\)/);
      const file = join(dir, 'broken.json');
      writeFileSync(file, '{"mappedFields": ');
      const broken = await extract(['--request', file, '--datasource', 'pg=env:PG_URL']);
      expect(broken.code).toBe(2);
      expectOneLine(broken, /--request: not JSON/);
    });

    it('a request over a count limit (FET-1061), and a --limits above the engine default', async () => {
      const file = join(dir, 'too-many-tables.json');
      const tables = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`t${i}`, ['id']]));
      writeFileSync(file, JSON.stringify({ mappedFields: { pg: tables } }));
      const overCount = await extract(['--request', file, '--datasource', 'pg=env:PG_URL']);
      expect(overCount.code).toBe(2);
      expectOneLine(overCount, /FET-1061 maximum 20 tables allowed per datasource, got 21/);
      const overDefault = await withRequest('--limits', 'timeoutMs=999999999');
      expect(overDefault.code).toBe(2);
      expectOneLine(overDefault, /limits\.timeoutMs must be an integer from 1 to 300000/);
    });

    it('a malformed URL, an unknown engine scheme, a datasource without a URL, a variable that is not set', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['--datasource', `pg=postgres://u:${SECRET}@[::1/db`], /FET-0001 datasource URL: /],
        [['--datasource', `pg=redis://u:${SECRET}@host:6379/0`], /scheme "redis" is not accepted; use postgres:\/\//],
        [[], /no URL for datasource 'pg': give --datasource pg=<url> or set FETCHER_DATASOURCE_PG/],
        [['--datasource', 'pg=env:NOT_SET_ANYWHERE'], /--datasource pg: environment variable NOT_SET_ANYWHERE is not set/],
      ];
      for (const [args, pattern] of cases) {
        const run = await extract(['--request', requestFile, ...args]);
        expect(run.code, run.stderr).toBe(2);
        expectOneLine(run, pattern);
      }
    });
  });

  describe('extraction failures exit 1 with the FET code, and leave no file', () => {
    it('a server that is down: FET-1040 at once', async () => {
      const out = join(dir, 'down.json');
      const run = await extract([
        '--request',
        requestFile,
        '--datasource',
        `pg=postgres://${pg().user}:${SECRET}@127.0.0.1:${await freePort()}/db`,
        '--out',
        out,
      ]);
      expect(run.code).toBe(1);
      expectOneLine(run, /^fetcher extract: FET-1040 datasource\(s\) unavailable: pg — .*connection refused/);
      expect(readdirSync(dir).filter((name) => name.includes('down'))).toEqual([]);
    });

    it('a server that accepts the connection and never answers: FET-1040 within the connect deadline', async () => {
      const out = join(dir, 'mute.json');
      const run = await extract([
        '--request',
        requestFile,
        '--datasource',
        `pg=postgres://u:${SECRET}@127.0.0.1:${silentPort}/db`,
        '--connect-timeout',
        '1000',
        '--out',
        out,
      ]);
      expect(run.code).toBe(1);
      expectOneLine(run, /^fetcher extract: FET-1040 datasource\(s\) unavailable: pg — /);
      expect(run.elapsedMs).toBeLessThan(1000 + 2000);
      expect(readdirSync(dir).filter((name) => name.includes('mute'))).toEqual([]);
    });

    it('a server silent on its catalog query: FET-1043 within the connect and discovery deadlines', async () => {
      const run = await extract([
        '--request',
        requestFile,
        '--datasource',
        `pg=${url(catalogSilence.port)}`,
        '--discovery-timeout',
        '1500',
        '--out',
        join(dir, 'silent.json'),
      ]);
      expect(run.code).toBe(1);
      expectOneLine(run, /FET-1043 .*did not answer its schema discovery within 1500 ms/);
      expect(run.elapsedMs).toBeLessThan(1500 + 3000);
      expect(readdirSync(dir).filter((name) => name.includes('silent'))).toEqual([]);
    });

    it('a result over --limits maxResultBytes: FET-1101, nothing left under the name or beside it', async () => {
      const out = join(dir, 'too-big.json');
      const run = await withRequest('--limits', 'maxResultBytes=10000', '--out', out);
      expect(run.code).toBe(1);
      expectOneLine(run, /FET-1101 .*10000 bytes; nothing was stored/);
      expect(readdirSync(dir).filter((name) => name.includes('too-big'))).toEqual([]);
    });
  });

  it('fetcher test and fetcher schema: 1 for an unreachable or silent server within their deadlines, 2 for a bad URL', async () => {
    const silent = await runFetcherCli(['test', `postgres://u:${SECRET}@127.0.0.1:${silentPort}/db`, '--timeout', '1000']);
    expect(silent.code).toBe(1);
    expectOneLine(silent, /^fetcher test: FET-1041 .*\(reason: timeout\)$/);
    expect(silent.elapsedMs).toBeLessThan(1000 + 2000);
    const schema = await runFetcherCli(['schema', url(catalogSilence.port), '--timeout', '1500']);
    expect(schema.code).toBe(1);
    expectOneLine(schema, /^fetcher schema: FET-1043 /);
    expect(schema.elapsedMs).toBeLessThan(1500 + 2000);
    const bad = await runFetcherCli(['test', 'postgres://']);
    expect(bad.code).toBe(2);
    expectOneLine(bad, /^fetcher test: FET-0001 datasource URL: /);
    const ok = await runFetcherCli(['test', 'env:PG_URL'], { env: { PG_URL: url() } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout.toString())).toMatchObject({ ok: true });
  });
});
