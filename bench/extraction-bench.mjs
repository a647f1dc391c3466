#!/usr/bin/env node
// End-to-end extraction benchmark (SPEC §10): a 1M-row, 8-column table, extracted by a real
// Fetcher process (POST → completed, encrypted object stored), compared with the engine's own
// client streaming the same query to /dev/null in the same run (`psql -c "COPY (…) TO STDOUT"`,
// `mariadb --quick -N -B -e "SELECT …"`). Reports rows/s, MiB/s, the ratio and the worker's peak
// RSS (VmHWM).
//   npm run bench -- [--engine postgres|mariadb] [--rows 1000000] [--keep] [--profile DIR]
import { spawn, spawnSync } from 'node:child_process';
import { fetcherNodeOptions } from '../dist/bootstrap/runtime-flags.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : fallback;
};
const ROWS = Number(option('rows', '1000000'));
const ENGINE = option('engine', 'postgres');
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const MARIA = { host: '127.0.0.1', port: 3306, user: 'root' };
if (!['postgres', 'mariadb'].includes(ENGINE)) throw new Error('--engine must be postgres or mariadb');
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

async function seedMaria() {
  const admin = await mysql.createConnection({ ...MARIA, multipleStatements: true });
  try {
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    await admin.query(`USE ${database};
      CREATE TABLE bench_rows (
        id BIGINT PRIMARY KEY, uid CHAR(36) NOT NULL, name VARCHAR(32) NOT NULL, amount DECIMAL(12,2) NOT NULL,
        qty INT NOT NULL, active TINYINT(1) NOT NULL, created_at DATETIME(6) NOT NULL, note VARCHAR(64) NULL);
      INSERT INTO bench_rows
        SELECT seq, UUID(), CONCAT('name-', seq), (seq % 100000) / 100, seq % 1000, seq % 2 = 0,
               TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq * 1000123 MICROSECOND,
               IF(seq % 10 = 0, NULL, CONCAT('note "', seq, '" with \\\\ backslash'))
        FROM seq_1_to_${ROWS};
      ANALYZE TABLE bench_rows;`);
  } finally {
    await admin.end();
  }
}

function clientReference() {
  if (ENGINE === 'mariadb') {
    const started = process.hrtime.bigint();
    const result = spawnSync('bash', ['-c', `mariadb -h ${MARIA.host} -P ${MARIA.port} -u ${MARIA.user} --quick -N -B -e "SELECT ${PROJECTION} FROM ${database}.bench_rows" > /dev/null`]);
    if (result.status !== 0) throw new Error(`mariadb client failed: ${result.stderr}`);
    return Number(process.hrtime.bigint() - started) / 1e9;
  }
  return copyReference();
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
    log(`seeding ${ROWS} rows into ${ENGINE} database ${database}…`);
    await (ENGINE === 'mariadb' ? seedMaria() : seed());
    clientReference(); // warm the cache so both sides read from memory
    const copySeconds = clientReference();

    // --profile DIR writes a V8 CPU profile of the Fetcher process there.
    const profile = option('profile') ? ['--cpu-prof', `--cpu-prof-dir=${resolve(option('profile'))}`] : [];
    child = spawn(process.execPath, [...profile, join(root, 'dist/main.js')], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        PORT: String(port),
        // Measured as shipped: `npm start` and the image run with these heap settings.
        NODE_OPTIONS: fetcherNodeOptions(process.env),
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
      body: JSON.stringify(
        ENGINE === 'mariadb'
          ? { configName: 'bench_db', type: 'MYSQL', host: MARIA.host, port: MARIA.port, databaseName: database, userName: MARIA.user, password: '' }
          : { configName: 'bench_db', type: 'POSTGRESQL', host: PG.host, port: PG.port, databaseName: database, userName: PG.user, password: 'unused' },
      ),
    });
    if (created.status !== 201) throw new Error(`create connection: ${created.status} ${await created.text()}`);

    const started = process.hrtime.bigint();
    const submitted = await fetch(`${base}/v1/fetcher`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ dataRequest: { mappedFields: { bench_db: { bench_rows: PROJECTION.split(', ') } } }, metadata: { source: 'bench', run: String(Date.now()) } }),
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
    log(`${ENGINE === 'mariadb' ? 'mariadb --quick -B    ' : 'psql COPY … TO STDOUT '} ${copySeconds.toFixed(2)} s   ${Math.round(copyRowsPerSecond).toLocaleString('en-US')} rows/s`);
    log(`fetcher POST→completed ${seconds.toFixed(2)} s   ${Math.round(rowsPerSecond).toLocaleString('en-US')} rows/s   ${(mib(job.result.sizeBytes) / seconds).toFixed(1)} MiB/s`);
    const workerSeconds = (Date.parse(job.completedAt) - Date.parse(job.startedAt)) / 1000;
    log(`  of which in worker   ${workerSeconds.toFixed(2)} s (claim → completed), queued ${((Date.parse(job.startedAt) - Date.parse(job.createdAt)) / 1000).toFixed(2)} s`);
    log(`ratio to the client    ${((rowsPerSecond / copyRowsPerSecond) * 100).toFixed(1)} %`);
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
      if (ENGINE === 'mariadb') {
        const admin = await mysql.createConnection(MARIA);
        await admin.query(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
        await admin.end();
      } else {
        await withClient('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => undefined);
      }
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
