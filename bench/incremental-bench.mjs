#!/usr/bin/env node
// Incremental extraction benchmark (docs/incremental.md). Seeds a PostgreSQL table of --rows rows
// (default 1M) with an indexed cursor column, runs one incremental job to take the stream's first
// mark, then per repetition: the full job (the same projection, no incremental), 1,000 new rows
// above the mark, and the incremental job that reads only those. Both jobs go through one Fetcher
// process (POST /v1/fetcher → completed, encrypted object stored) started once, so the figures
// compare the jobs and not process start-ups. Prints each job's seconds as median (min–max), the
// ratio incremental ÷ full, and the EXPLAIN of the bound and of the range read.
//
//   npm run bench -- --scenario incremental [--reps 3] [--rows 1000000] [--keep]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { killAllFetchers, postJson, startFetcher } from './lib/fetcher-process.mjs';
import { gitInfo, machineInfo } from './lib/machine.mjs';
import { spread } from './lib/report.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const log = (line = '') => process.stdout.write(`${line}\n`);
const argument = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const ROWS = Number(argument('rows', 1_000_000));
const REPS = Number(argument('reps', 3));
const NEW_ROWS = 1_000;
const KEEP = process.argv.includes('--keep');
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const database = `fetcher_bench_inc_${Date.now()}`;
const FIELDS = ['id', 'seq', 'name', 'amount', 'created_at'];

async function withPg(name, work) {
  const client = new pg.Client({ ...PG, database: name });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function seed() {
  await withPg('postgres', (c) => c.query(`CREATE DATABASE ${database}`));
  await withPg(database, async (c) => {
    await c.query(`CREATE TABLE ledger (id bigint PRIMARY KEY, seq bigint NOT NULL, name text NOT NULL,
      amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL)`);
    await c.query(`INSERT INTO ledger SELECT g, g, 'name-' || g, (g % 100000) / 100.0,
      timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, ${ROWS}) g`);
    await c.query('CREATE INDEX ledger_seq ON ledger (seq)');
    await c.query('VACUUM ANALYZE ledger');
  });
}

async function appendRows(from) {
  await withPg(database, async (c) => {
    await c.query(`INSERT INTO ledger SELECT g, g, 'name-' || g, (g % 100000) / 100.0,
      timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(${from + 1}, ${from + NEW_ROWS}) g`);
    await c.query('ANALYZE ledger');
  });
}

/** The statements an incremental read of this table runs, as EXPLAIN shows them. */
async function explain(after, upper) {
  return withPg(database, async (c) => {
    const bound = await c.query(
      `EXPLAIN SELECT b.bound FROM (SELECT max("seq") AS bound FROM "public"."ledger") AS b WHERE b.bound > $1::int8`,
      [after],
    );
    const read = await c.query(
      `EXPLAIN SELECT ${FIELDS.map((f) => `"${f}"`).join(', ')} FROM "public"."ledger" WHERE "seq" > $1::int8 AND "seq" <= $2::int8 ORDER BY "id"`,
      [after, upper],
    );
    return { bound: bound.rows.map((row) => row['QUERY PLAN']), read: read.rows.map((row) => row['QUERY PLAN']) };
  });
}

async function runJob(fetcher, body) {
  const started = Date.now();
  const submitted = await postJson(`${fetcher.base}/v1/fetcher`, body);
  if (!submitted.json?.jobId) throw new Error(`POST /v1/fetcher answered ${submitted.status}: ${submitted.text}`);
  for (;;) {
    const job = await (await fetch(`${fetcher.base}/v1/fetcher/${submitted.json.jobId}`)).json();
    if (job.status === 'failed') throw new Error(`job ${job.id} failed: ${JSON.stringify(job.error)}`);
    if (job.status === 'completed') return { job, seconds: (Date.parse(job.completedAt) - started) / 1000 };
    await new Promise((done) => setTimeout(done, 20));
  }
}

async function main() {
  const machine = await machineInfo(['postgres']);
  const git = gitInfo(root);
  log(
    `machine: ${machine.cores} cores, node ${machine.node}, PostgreSQL ${machine.postgres}, load ${machine.loadAverageAtStart.join(' ')}`,
  );
  log(
    `commit ${git ? `${git.commit}${git.dirty ? ' (+ uncommitted changes)' : ''}` : 'unknown'} · ${ROWS.toLocaleString('en-US')} rows, +${NEW_ROWS} per rep, ${REPS} reps`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-bench-inc-'));
  let fetcher;
  try {
    await seed();
    fetcher = await startFetcher({ root, dataDir });
    const connection = await postJson(
      `${fetcher.base}/v1/management/connections`,
      {
        configName: 'bench_db',
        type: 'POSTGRESQL',
        host: PG.host,
        port: PG.port,
        databaseName: database,
        userName: PG.user,
        password: 'unused',
      },
      { 'X-Product-Name': 'bench' },
    );
    if (connection.status !== 201) throw new Error(`create connection answered ${connection.status}: ${connection.text}`);
    const mappedFields = { bench_db: { ledger: FIELDS } };
    const incremental = { stream: `bench-${Date.now()}`, cursors: { bench_db: { ledger: 'seq' } } };
    const first = await runJob(fetcher, { dataRequest: { mappedFields, incremental }, metadata: { source: 'bench', rep: 0 } });
    log(`first incremental job (the whole table, takes the mark): ${first.seconds.toFixed(2)} s, ${first.job.result?.rowCount} rows`);
    let top = ROWS;
    const figures = [];
    for (let rep = 1; rep <= REPS; rep += 1) {
      const full = await runJob(fetcher, { dataRequest: { mappedFields }, metadata: { source: 'bench', rep, kind: 'full' } });
      await appendRows(top);
      const mark = String(top);
      top += NEW_ROWS;
      const inc = await runJob(fetcher, {
        dataRequest: { mappedFields, incremental },
        metadata: { source: 'bench', rep, kind: 'incremental' },
      });
      const range = inc.job.incremental?.tables?.bench_db?.ledger;
      if (inc.job.result?.rowCount !== NEW_ROWS || range?.from !== mark || range?.to !== String(top))
        throw new Error(`rep ${rep}: the incremental job read ${inc.job.result?.rowCount} rows, range ${JSON.stringify(range)}`);
      figures.push({ full: full.seconds, incremental: inc.seconds, ratio: inc.seconds / full.seconds });
      log(
        `  rep ${rep}/${REPS}  full ${full.seconds.toFixed(2)} s (${full.job.result?.rowCount} rows)  incremental ${inc.seconds.toFixed(3)} s (${NEW_ROWS} rows, ${range.from} < seq <= ${range.to})`,
      );
    }
    const show = (values, digits, unit = '') => {
      const s = spread(values);
      return `${s.median.toFixed(digits)}${unit} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
    };
    log(
      `full job         ${show(
        figures.map((f) => f.full),
        2,
        ' s',
      )}`,
    );
    log(
      `incremental job  ${show(
        figures.map((f) => f.incremental),
        3,
        ' s',
      )}`,
    );
    log(
      `incremental ÷ full ${show(
        figures.map((f) => f.ratio * 100),
        2,
        ' %',
      )}`,
    );
    const plans = await explain(String(top - NEW_ROWS), String(top));
    log('EXPLAIN of the bound:');
    for (const line of plans.bound) log(`  ${line}`);
    log('EXPLAIN of the range read:');
    for (const line of plans.read) log(`  ${line}`);
  } finally {
    await fetcher?.stop();
    await killAllFetchers();
    rmSync(dataDir, { recursive: true, force: true });
    if (KEEP) log(`kept database ${database}`);
    else await withPg('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
