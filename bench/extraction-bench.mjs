#!/usr/bin/env node
// End-to-end extraction benchmark (SPEC §10): a 1M-row, 8-column PostgreSQL table, extracted by a
// real Fetcher process (POST → completed, encrypted object stored), compared with
// `psql -c "COPY (…) TO STDOUT" > /dev/null` on the same table in the same run.
// Reports rows/s, MiB/s, the ratio to COPY and the worker's peak RSS (VmHWM).
//   npm run bench -- [--rows 1000000] [--keep] [--profile DIR]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : fallback;
};
const ROWS = Number(option('rows', '1000000'));
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const database = `fetcher_bench_${Date.now()}`;
const PROJECTION = 'id, uid, name, amount, qty, active, created_at, note';

const mib = (bytes) => bytes / 1024 / 1024;
const log = (line) => process.stdout.write(`${line}\n`);

async function freePort() {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function withClient(db, work) {
  const client = new pg.Client({ ...PG, database: db });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function seed() {
  await withClient('postgres', (c) => c.query(`CREATE DATABASE ${database}`));
  await withClient(database, async (c) => {
    await c.query(`CREATE TABLE bench_rows (
      id bigint PRIMARY KEY, uid uuid NOT NULL, name text NOT NULL, amount numeric(12,2) NOT NULL,
      qty integer NOT NULL, active boolean NOT NULL, created_at timestamptz NOT NULL, note text)`);
    await c.query(`INSERT INTO bench_rows
      SELECT g, md5(g::text)::uuid, 'name-' || g, (g % 100000) / 100.0, g % 1000, g % 2 = 0,
             timestamptz '2026-01-01 00:00:00+00' + g * interval '1.000123 second',
             CASE WHEN g % 10 = 0 THEN NULL ELSE 'note "' || g || '" with \\ backslash' END
      FROM generate_series(1, $1) g`, [ROWS]);
    await c.query('ANALYZE bench_rows');
  });
}

function copyReference() {
  const started = process.hrtime.bigint();
  const result = spawnSync('bash', ['-c', `psql -h ${PG.host} -p ${PG.port} -U ${PG.user} -d ${database} -X -q -c "COPY (SELECT ${PROJECTION} FROM bench_rows) TO STDOUT" > /dev/null`]);
  if (result.status !== 0) throw new Error(`psql COPY failed: ${result.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function peakRssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kib * 1024;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-bench-'));
  const port = await freePort();
  let child;
  try {
    log(`seeding ${ROWS} rows into ${database}…`);
    await seed();
    copyReference(); // warm the cache so both sides read from memory
    const copySeconds = copyReference();

    // --profile DIR writes a V8 CPU profile of the Fetcher process there.
    const profile = option('profile') ? ['--cpu-prof', `--cpu-prof-dir=${resolve(option('profile'))}`] : [];
    child = spawn(process.execPath, [...profile, join(root, 'dist/main.js')], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        PORT: String(port),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {}
      if (i > 300) throw new Error('fetcher did not start');
      await new Promise((done) => setTimeout(done, 100));
    }
    const idleRss = peakRssBytes(child.pid);
    const json = { 'Content-Type': 'application/json' };
    const created = await fetch(`${base}/v1/management/connections`, {
      method: 'POST',
      headers: { ...json, 'X-Product-Name': 'bench' },
      body: JSON.stringify({ configName: 'bench_pg', type: 'POSTGRESQL', host: PG.host, port: PG.port, databaseName: database, userName: PG.user, password: 'unused' }),
    });
    if (created.status !== 201) throw new Error(`create connection: ${created.status} ${await created.text()}`);

    const started = process.hrtime.bigint();
    const submitted = await fetch(`${base}/v1/fetcher`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ dataRequest: { mappedFields: { bench_pg: { bench_rows: PROJECTION.split(', ') } } }, metadata: { source: 'bench', run: String(Date.now()) } }),
    });
    const { jobId } = await submitted.json();
    let job;
    for (;;) {
      job = await (await fetch(`${base}/v1/fetcher/${jobId}`)).json();
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((done) => setTimeout(done, 50));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (job.status !== 'completed') throw new Error(`job failed: ${JSON.stringify(job.error)}`);
    const peak = peakRssBytes(child.pid);

    const rowsPerSecond = ROWS / seconds;
    const copyRowsPerSecond = ROWS / copySeconds;
    log('');
    log(`node ${process.version}, ${ROWS} rows × 8 columns, result ${mib(job.result.sizeBytes).toFixed(1)} MiB plaintext`);
    log(`psql COPY … TO STDOUT  ${copySeconds.toFixed(2)} s   ${Math.round(copyRowsPerSecond).toLocaleString('en-US')} rows/s`);
    log(`fetcher POST→completed ${seconds.toFixed(2)} s   ${Math.round(rowsPerSecond).toLocaleString('en-US')} rows/s   ${(mib(job.result.sizeBytes) / seconds).toFixed(1)} MiB/s`);
    const workerSeconds = (Date.parse(job.completedAt) - Date.parse(job.startedAt)) / 1000;
    log(`  of which in worker   ${workerSeconds.toFixed(2)} s (claim → completed), queued ${((Date.parse(job.startedAt) - Date.parse(job.createdAt)) / 1000).toFixed(2)} s`);
    log(`ratio to COPY          ${((rowsPerSecond / copyRowsPerSecond) * 100).toFixed(1)} %`);
    log(`worker peak RSS        ${mib(peak).toFixed(1)} MiB (idle after boot: ${mib(idleRss).toFixed(1)} MiB)`);
    if (peak > 300 * 1024 * 1024) {
      log('FAIL: peak RSS above 300 MiB');
      process.exitCode = 1;
    }
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (!argv.includes('--keep')) {
      await withClient('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => undefined);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
