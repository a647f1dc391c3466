#!/usr/bin/env node
// Small jobs at the speed of the queue. One Manager and two Workers (FETCHER_ROLE) on a PostgreSQL
// job store and Redis, with local results in one shared directory and AUTH_MODE=none, all started
// as `npm start` starts them. The source is a 5,000-row PostgreSQL table, and each job reads 10
// rows × 3 columns of it: a distinct id range, plus a per-job tag in its metadata, so that no job
// is a duplicate of another. For each client count C, N jobs are submitted by C concurrent clients,
// each posting its next job as soon as its last POST was answered. Completion is read from the job
// store, not by polling the API, whose cost would be counted as the Manager's.
//
// Printed for each client count, as median (min–max) of the repetitions: POST p50/p99, POSTs/s,
// jobs completed/s (N over first POST → last completion), POST→completed p50/p99, and CPU ms per
// POST (Manager) and per job (the two Workers together), from /proc utime+stime over the window.
//
//   npm run bench -- --scenario small-jobs [--jobs 600] [--clients 20,4,1] [--reps 3] [--json FILE]
//                    [--profile DIR] [--keep]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { formatTop, newestProfile, topFunctions } from './lib/cpuprofile.mjs';
import { cpuPerJob, machineCpu, processMs as cpuMs } from './lib/machine-cpu.mjs';
import { killAllFetchers, postJson, startFetcher } from './lib/fetcher-process.mjs';
import { gitInfo, machineInfo } from './lib/machine.mjs';
import { spread } from './lib/report.mjs';
import { smallJobsOptions } from './lib/small-jobs-options.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const log = (line = '') => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`${line}\n`);
const settings = smallJobsOptions(process.argv.slice(2));
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };
const RUN = Date.now();
const STORE_DB = `fetcher_bench_store_${RUN}`;
const SOURCE_DB = `fetcher_bench_source_${RUN}`;
const TABLE_ROWS = 5_000;
const ROWS_PER_JOB = 10;
const WARMUP_JOBS = 40;
const tempDirs = [];

async function admin(sql) {
  const client = new pg.Client({ ...PG, database: 'postgres' });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function seedSource() {
  await admin(`CREATE DATABASE ${SOURCE_DB}`);
  const client = new pg.Client({ ...PG, database: SOURCE_DB });
  await client.connect();
  try {
    await client.query(`CREATE TABLE small_rows (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(12,2) NOT NULL, note text)`);
    await client.query(
      `INSERT INTO small_rows SELECT g, 'name-' || g, (g % 100000) / 100.0, 'note ' || g FROM generate_series(1, ${TABLE_ROWS}) g`,
    );
    await client.query('ANALYZE small_rows');
  } finally {
    await client.end();
  }
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function startCluster() {
  const shared = {
    APP_ENC_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('base64'),
    DATABASE_URL: `postgres://${PG.user}@${PG.host}:${PG.port}/${STORE_DB}`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `fetcher_bench_${RUN}`,
    RESULTS_DIR: mkdtempSync(join(tmpdir(), 'fetcher-bench-results-')),
    AUTH_MODE: 'none',
    // The bench measures the service, not its abuse limits: one principal submits every job.
    JOB_SUBMIT_RATE_LIMIT: '1000000',
  };
  tempDirs.push(shared.RESULTS_DIR);
  const nodeArgs = settings.profile ? ['--cpu-prof', `--cpu-prof-dir=${settings.profile}`] : [];
  const start = (role) => {
    const dataDir = mkdtempSync(join(tmpdir(), `fetcher-bench-${role}-`));
    tempDirs.push(dataDir);
    return startFetcher({ root, dataDir, nodeArgs, extraEnv: { ...shared, FETCHER_ROLE: role }, say: warn });
  };
  // The Manager first: it applies the store's migrations.
  const manager = await start('manager');
  const workers = [await start('worker'), await start('worker')];
  return { manager, workers };
}

const IDLE_WINDOW_MS = 5_000;

/** CPU ms per second each process spends with no job to run (pollers, timers, the queue's blocking reads). */
async function idleCpu(manager, workers) {
  // Let the warm-up's last completions, events and deliveries finish first.
  await new Promise((done) => setTimeout(done, 2_000));
  const before = [manager, ...workers].map((p) => cpuMs(p.pid));
  await new Promise((done) => setTimeout(done, IDLE_WINDOW_MS));
  const perSecond = [manager, ...workers].map((p, i) => ((cpuMs(p.pid) - before[i]) * 1000) / IDLE_WINDOW_MS);
  return { manager: perSecond[0], workers: perSecond.slice(1) };
}

/** N jobs from C clients; returns the repetition's figures, read from the answers and the job store. */
async function repetition(base, store, { jobs, clients, offset, tag }) {
  const posts = new Array(jobs);
  let next = 0;
  const client = async () => {
    while (next < jobs) {
      const index = next++;
      const first = ((offset + index) % (TABLE_ROWS - ROWS_PER_JOB)) + 1;
      const started = Date.now();
      const t0 = performance.now();
      const answer = await postJson(`${base}/v1/fetcher`, {
        dataRequest: {
          mappedFields: { bench_db: { small_rows: ['id', 'name', 'amount'] } },
          filters: { bench_db: { small_rows: { id: { between: [first, first + ROWS_PER_JOB - 1] } } } },
        },
        metadata: { source: 'bench', run: `${tag}-${index}` },
      });
      if (answer.status !== 202) throw new Error(`POST /v1/fetcher answered ${answer.status}: ${answer.text}`);
      posts[index] = { jobId: answer.json.jobId, started, ms: performance.now() - t0 };
    }
  };
  const windowStart = Date.now();
  await Promise.all(Array.from({ length: clients }, client));
  const postsDone = Date.now();
  const ids = posts.map((post) => post.jobId);
  const deadline = Date.now() + 10 * 60 * 1000;
  for (;;) {
    const { rows } = await store.query(`SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND status IN ('completed', 'failed')`, [
      ids,
    ]);
    if (rows[0].n === jobs) break;
    if (Date.now() > deadline) throw new Error(`${jobs - rows[0].n} of ${jobs} jobs not ended after 10 minutes`);
    await new Promise((done) => setTimeout(done, 20));
  }
  const { rows } = await store.query(`SELECT id, status, completed_at, updated_at FROM jobs WHERE id = ANY($1)`, [ids]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const failed = rows.filter((row) => row.status !== 'completed');
  if (failed.length > 0) throw new Error(`${failed.length} job(s) failed, e.g. ${failed[0].id}`);
  const endToEnd = posts.map((post) => new Date(byId.get(post.jobId).completed_at).getTime() - post.started);
  const lastCompletion = Math.max(...rows.map((row) => new Date(row.completed_at).getTime()));
  return {
    postP50: percentile(
      posts.map((post) => post.ms),
      50,
    ),
    postP99: percentile(
      posts.map((post) => post.ms),
      99,
    ),
    postsPerSecond: jobs / ((postsDone - windowStart) / 1000),
    jobsPerSecond: jobs / ((lastCompletion - windowStart) / 1000),
    endToEndP50: percentile(endToEnd, 50),
    endToEndP99: percentile(endToEnd, 99),
  };
}

const fmt = (s, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

async function main() {
  const machine = await machineInfo(['postgres']);
  log(`small-jobs bench · ${new Date().toISOString()} · ${JSON.stringify(machine)} · ${JSON.stringify(gitInfo(root))}`);
  log(
    `one Manager + two Workers (PostgreSQL store, Redis queue, local results, AUTH_MODE=none); ${settings.jobs} jobs per repetition, ` +
      `each ${ROWS_PER_JOB} rows × 3 columns of a ${TABLE_ROWS.toLocaleString('en-US')}-row PostgreSQL table; ${settings.reps} repetition(s) per client count`,
  );
  await admin(`CREATE DATABASE ${STORE_DB}`);
  await seedSource();
  const { manager, workers } = await startCluster();
  const store = new pg.Client({ ...PG, database: STORE_DB });
  await store.connect();
  const results = [];
  let idle;
  try {
    const connection = await postJson(
      `${manager.base}/v1/management/connections`,
      {
        configName: 'bench_db',
        type: 'POSTGRESQL',
        host: PG.host,
        port: PG.port,
        databaseName: SOURCE_DB,
        userName: PG.user,
        password: 'unused',
      },
      { 'X-Product-Name': 'bench' },
    );
    if (connection.status !== 201) throw new Error(`create connection answered ${connection.status}: ${connection.text}`);
    let offset = 0;
    // Warm every process (JIT, pools, the schema cache) before anything is measured.
    await repetition(manager.base, store, { jobs: WARMUP_JOBS, clients: 4, offset, tag: 'warmup' });
    offset += WARMUP_JOBS;
    idle = await idleCpu(manager, workers);
    log(
      `idle CPU over ${IDLE_WINDOW_MS / 1000} s with nothing to do: Manager ${idle.manager.toFixed(1)} ms/s, Workers ${idle.workers.map((ms) => ms.toFixed(1)).join(' and ')} ms/s`,
    );
    for (const clients of settings.clients) {
      const reps = [];
      for (let rep = 1; rep <= settings.reps; rep += 1) {
        const before = { manager: cpuMs(manager.pid), workers: workers.map((worker) => cpuMs(worker.pid)), machine: machineCpu() };
        const figures = await repetition(manager.base, store, { jobs: settings.jobs, clients, offset, tag: `c${clients}-r${rep}` });
        offset += settings.jobs;
        const managerMs = cpuMs(manager.pid) - before.manager;
        const workerMs = workers.map((worker, index) => cpuMs(worker.pid) - before.workers[index]);
        figures.managerCpuMsPerPost = managerMs / settings.jobs;
        figures.workerCpuMsPerJob = workerMs.reduce((a, b) => a + b, 0) / settings.jobs;
        figures.workerCpuMs = workerMs;
        figures.machine = cpuPerJob(before.machine, machineCpu(), settings.jobs, managerMs + workerMs.reduce((a, b) => a + b, 0));
        reps.push(figures);
        log(
          `  ${clients} client(s) rep ${rep}: POST p50 ${figures.postP50.toFixed(1)} ms p99 ${figures.postP99.toFixed(1)} ms · ` +
            `${figures.postsPerSecond.toFixed(1)} POSTs/s · ${figures.jobsPerSecond.toFixed(1)} jobs/s · POST→completed p50 ` +
            `${figures.endToEndP50.toFixed(0)} ms p99 ${figures.endToEndP99.toFixed(0)} ms · CPU ${figures.managerCpuMsPerPost.toFixed(2)} ms/POST ` +
            `(Manager), ${figures.workerCpuMsPerJob.toFixed(2)} ms/job (Workers: ${workerMs.join(' + ')} ms)`,
        );
        const m = figures.machine;
        log(
          `    machine CPU per job ${m.busy.toFixed(1)} ms: Fetcher ${m.fetcher.toFixed(1)}, PostgreSQL ${m.postgres.toFixed(1)}, ` +
            `Redis ${m.redis.toFixed(1)}, bench driver ${m.driver.toFixed(1)}, rest ${m.rest.toFixed(1)}`,
        );
      }
      const of = (pick) => spread(reps.map(pick));
      results.push({
        clients,
        reps,
        summary: {
          postP50: of((r) => r.postP50),
          postP99: of((r) => r.postP99),
          postsPerSecond: of((r) => r.postsPerSecond),
          jobsPerSecond: of((r) => r.jobsPerSecond),
          endToEndP50: of((r) => r.endToEndP50),
          endToEndP99: of((r) => r.endToEndP99),
          managerCpuMsPerPost: of((r) => r.managerCpuMsPerPost),
          workerCpuMsPerJob: of((r) => r.workerCpuMsPerJob),
          machineBusyMsPerJob: of((r) => r.machine.busy),
          postgresMsPerJob: of((r) => r.machine.postgres),
          redisMsPerJob: of((r) => r.machine.redis),
          driverMsPerJob: of((r) => r.machine.driver),
          restMsPerJob: of((r) => r.machine.rest),
        },
      });
    }
  } finally {
    await store.end();
    await Promise.all([manager.stop(), ...workers.map((worker) => worker.stop())]);
  }

  log();
  log(`medians of ${settings.reps} (min–max), ${settings.jobs} jobs each:`);
  log(
    '| clients | POST p50 / p99 ms | POSTs/s | jobs completed/s | POST→completed p50 / p99 ms | CPU ms per POST (Manager) | CPU ms per job (Workers) |',
  );
  log('|---|---|---|---|---|---|---|');
  for (const { clients, summary: s } of results) {
    log(
      `| ${clients} | ${fmt(s.postP50, 1)} / ${fmt(s.postP99, 1)} | ${fmt(s.postsPerSecond)} | ${fmt(s.jobsPerSecond)} | ` +
        `${fmt(s.endToEndP50)} / ${fmt(s.endToEndP99)} | ${fmt(s.managerCpuMsPerPost, 2)} | ${fmt(s.workerCpuMsPerJob, 2)} |`,
    );
  }
  log();
  log(
    `the whole machine's busy CPU per job (${cpus().length} cores: ${cpus().length * 1000} ms of CPU a second), by who spent it; ` +
      'the ceiling is the jobs/s at which that CPU would fill every core:',
  );
  log(
    '| clients | machine | Manager + Workers | PostgreSQL (source and store) | Redis | bench driver | rest (kernel, other) | ceiling jobs/s |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const { clients, summary: s } of results) {
    const fetcher = s.managerCpuMsPerPost.median + s.workerCpuMsPerJob.median;
    log(
      `| ${clients} | ${fmt(s.machineBusyMsPerJob, 1)} | ${fetcher.toFixed(1)} | ${fmt(s.postgresMsPerJob, 1)} | ${fmt(s.redisMsPerJob, 1)} | ` +
        `${fmt(s.driverMsPerJob, 1)} | ${fmt(s.restMsPerJob, 1)} | ${((cpus().length * 1000) / s.machineBusyMsPerJob.median).toFixed(0)} |`,
    );
  }
  if (settings.profile) {
    for (const [label, process_] of [['Manager', manager], ...workers.map((worker, i) => [`Worker ${i + 1}`, worker])]) {
      const path = newestProfile(settings.profile, process_.pid);
      if (!path) continue;
      log();
      log(`CPU profile of the ${label} (whole process), top 15 by self time: ${path}`);
      for (const line of formatTop(topFunctions(path, { count: 15, root }))) log(line);
    }
  }
  if (settings.json) writeFileSync(settings.json, `${JSON.stringify({ machine, git: gitInfo(root), idle, results }, null, 2)}\n`);
}

/** The run's BullMQ keys (its own QUEUE_PREFIX), so that Redis is left as it was found. */
async function dropQueueKeys() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = [];
    for await (const batch of redis.scanStream({ match: `fetcher_bench_${RUN}*`, count: 500 })) keys.push(...batch);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  } finally {
    redis.disconnect();
  }
}

async function cleanUp() {
  await killAllFetchers();
  await dropQueueKeys().catch((error) => warn(`redis clean-up: ${error.message}`));
  if (!settings.keep) {
    await admin(`DROP DATABASE IF EXISTS ${STORE_DB} WITH (FORCE)`).catch((error) => warn(`drop ${STORE_DB}: ${error.message}`));
    await admin(`DROP DATABASE IF EXISTS ${SOURCE_DB} WITH (FORCE)`).catch((error) => warn(`drop ${SOURCE_DB}: ${error.message}`));
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

process.once('SIGINT', () => {
  void cleanUp().finally(() => process.exit(130));
});
try {
  await main();
  await cleanUp();
} catch (error) {
  warn(`small-jobs bench failed: ${error.stack ?? error}`);
  await cleanUp();
  process.exit(1);
}
