#!/usr/bin/env node
// End-to-end extraction benchmark. For each engine (PostgreSQL and MariaDB) and
// scenario it seeds a table, then runs paired repetitions: the engine's own client streams the
// query to /dev/null (`psql -X -q -c "COPY (…) TO STDOUT"`, `mariadb --quick -N -B -e "SELECT …"`),
// then a fresh Fetcher process extracts the same projection end to end (POST /v1/fetcher →
// completed, encrypted object stored). The object is then opened as a stream (outside the timed
// window) and its SHA-256, HMAC, size and row count checked against the job.
//   rows   1M rows × 8 columns (--rows N)
//   large  240,000 rows of id + a 1,000-character payload: a ~251 MiB result (the ceiling is 256 MiB)
// Each repetition then runs `fetcher extract` (the command, no service) of the same projection to a
// file, whose document must hash to the job's.
// On PostgreSQL the rows scenario is also run in the other result formats (output.format), each its
// own paired repetitions on the same seeded table: ndjson, csv+gzip and parquet (--format picks).
// Prints rows/s, MiB/s (of the plaintext result, for every side), the ratios Fetcher ÷ client and
// fetcher extract ÷ client, and the peak and idle-after-boot RSS, each as median, min and max.
//
//   npm run bench -- [--engine postgres|mariadb] [--scenario rows|mixed|large[,…]] [--reps 3] [--rows 1000000]
//                    [--format json,ndjson,csv+gzip,parquet] [--json FILE] [--profile DIR] [--keep]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTop, newestProfile, topFunctions } from './lib/cpuprofile.mjs';
import { cliRepetition, liveCliRuns } from './lib/cli-run.mjs';
import { ENGINES } from './lib/engines.mjs';
import { killAllFetchers, postJson, startFetcher } from './lib/fetcher-process.mjs';
import { gitInfo, machineInfo } from './lib/machine.mjs';
import { parseArgs } from './lib/options.mjs';
import { formatRep, formatSummary, mib, MiB, summarize } from './lib/report.mjs';
import { outputBody, resultBytes, verifyJobResult } from './lib/verify-result.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const log = (line = '') => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`${line}\n`);

const options = parseArgs(process.argv.slice(2));
const PROJECTION = 'id, uid, name, amount, qty, active, created_at, note';
// 1,000 characters a row render to 1,098 JSON bytes (escapes, 'é€'): 240,000 rows ≈ 251.5 MiB, just
// under the service's hard result ceiling of 256 MiB (MAX_RESULT_BYTES_CEILING, FET-1101 above it).
const LARGE_ROWS = 240_000;
const LARGE_RANGE = [240 * MiB, 270 * MiB];
// 195 MiB per million rows: 1.25M rows is ≈ 244 MiB, the size the issue measured, under the 256 MiB result ceiling.
const MIXED_ROWS = 1_250_000;
const SCENARIOS = {
  rows: {
    table: 'bench_rows',
    projection: PROJECTION,
    rows: options.rows,
    describe: (n) => `${n.toLocaleString('en-US')} rows × 8 columns`,
    seed: 'seedRows',
    // The formats issue's comparison: the same table in every format, PostgreSQL only.
    outputs: (engine) => (engine.name === 'postgres' ? ['json', 'ndjson', 'csv+gzip', 'parquet'] : ['json']),
  },
  // The issue's mixed-types table: the rows table's eight types (bigint, uuid, text, numeric(12,2),
  // int, bool, timestamptz, a nullable text with quotes and backslashes) near the result ceiling.
  mixed: {
    table: 'bench_mixed',
    projection: PROJECTION,
    rows: MIXED_ROWS,
    describe: (n) => `${n.toLocaleString('en-US')} rows of mixed types (bigint, uuid, text, numeric, int, bool, timestamptz, escaped text)`,
    seed: 'seedRows',
    outputs: () => ['json'],
  },
  large: {
    table: 'bench_large',
    projection: 'id, payload',
    rows: LARGE_ROWS,
    describe: (n) => `${n.toLocaleString('en-US')} rows × (id, 1,000-char payload)`,
    seed: 'seedLarge',
    outputs: () => ['json'],
  },
};
const database = `fetcher_bench_${Date.now()}`;
const created = []; // engines whose database exists
const tempDirs = new Set();
const failures = [];

/** One Fetcher repetition: fresh process, connection, POST → completed. Returns the raw figures. */
async function runFetcher(engine, scenario, rep, output) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-bench-'));
  tempDirs.add(dataDir);
  const nodeArgs = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${options.profile}`] : [];
  const fetcher = await startFetcher({ root, dataDir, nodeArgs, say: warn });
  let job;
  let seconds;
  let peak;
  try {
    const connection = await postJson(
      `${fetcher.base}/v1/management/connections`,
      { configName: 'bench_db', ...engine.connection(database) },
      { 'X-Product-Name': 'bench' },
    );
    if (connection.status !== 201) throw new Error(`create connection answered ${connection.status}: ${connection.text}`);

    // Wall clock, as the job's completedAt is (same host): the end is when the job became completed,
    // not when the poll below happened to see it, so the 50 ms poll adds nothing to the figure.
    const started = Date.now();
    const submitted = await postJson(`${fetcher.base}/v1/fetcher`, {
      dataRequest: { mappedFields: { bench_db: { [scenario.table]: scenario.projection.split(', ') } } },
      ...(output === 'json' ? {} : { output: outputBody(output) }),
      metadata: { source: 'bench', run: `${database}-${engine.name}-${scenario.name}-${output}-${rep}` },
    });
    if (!submitted.json?.jobId) throw new Error(`POST /v1/fetcher answered ${submitted.status}: ${submitted.text}`);
    const deadline = Date.now() + 30 * 60 * 1000;
    for (;;) {
      const polled = await fetch(`${fetcher.base}/v1/fetcher/${submitted.json.jobId}`);
      job = await polled.json();
      if (job.status === 'completed' || job.status === 'failed') break;
      if (!fetcher.isRunning())
        throw new Error(`Fetcher exited during the job (${JSON.stringify(fetcher.exitInfo())}):\n${fetcher.recentOutput()}`);
      if (Date.now() > deadline) throw new Error(`job ${submitted.json.jobId} still ${job.status} after 30 minutes`);
      await new Promise((done) => setTimeout(done, 50));
    }
    const completedAt = Date.parse(job.completedAt ?? '');
    seconds = ((Number.isFinite(completedAt) ? completedAt : Date.now()) - started) / 1000;
    peak = fetcher.memory();
  } finally {
    await fetcher.stop();
  }
  return { job, seconds, peak, fetcher, dataDir };
}

function printProfile(pid, rep) {
  const path = newestProfile(options.profile, pid);
  if (!path) {
    log(`  no .cpuprofile found in ${options.profile}`);
    return undefined;
  }
  const top = topFunctions(path, { count: 15, root });
  log(`  CPU profile of rep ${rep} (whole process: boot, job, shutdown), top 15 by self time: ${path}`);
  for (const line of formatTop(top)) log(line);
  return top;
}

async function runScenario(engine, scenarioName) {
  const scenario = { name: scenarioName, ...SCENARIOS[scenarioName] };
  log();
  log(`── ${engine.name} · ${scenarioName}: ${scenario.describe(scenario.rows)}`);
  const seedStarted = Date.now();
  await engine[scenario.seed](database, scenario.rows, scenario.table);
  checkInterrupted();
  log(`  seeded ${database}.${scenario.table} in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
  engine.client(database, scenario.table, scenario.projection); // warm the cache: both sides read from memory
  const outputs = scenario.outputs(engine).filter((output) => options.formats.includes(output));
  const outcomes = [];
  for (const output of outputs) outcomes.push(await runOutput(engine, scenario, output));
  return outcomes;
}

async function runOutput(engine, scenario, output) {
  const scenarioName = scenario.name;
  if (output !== 'json') log(`  · output ${output}`);
  const reps = [];
  const outcome = { engine: engine.name, scenario: scenarioName, output, table: scenario.table, rows: scenario.rows, reps, profiles: [] };
  for (let rep = 1; rep <= options.reps; rep += 1) {
    checkInterrupted();
    const clientSeconds = engine.client(database, scenario.table, scenario.projection);
    checkInterrupted();
    const run = await runFetcher(engine, scenario, rep, output);
    checkInterrupted();
    const { job } = run;
    const raw = {
      rep,
      client: { seconds: clientSeconds },
      fetcher: { seconds: run.seconds, pid: run.fetcher.pid, jobId: job.id, status: job.status },
    };
    if (job.status !== 'completed') {
      failures.push(`${engine.name} ${scenarioName} rep ${rep}: job ${job.id} failed: ${JSON.stringify(job.error)}`);
      log(`  rep ${rep}/${options.reps}  FAIL: job ${job.status}: ${JSON.stringify(job.error)}`);
      reps.push(raw);
      rmSync(run.dataDir, { recursive: true, force: true });
      tempDirs.delete(run.dataDir);
      continue;
    }
    const size = resultBytes(job);
    if (typeof size !== 'number' || typeof job.result?.sha256 !== 'string' || !job.resultPath) {
      failures.push(`${engine.name} ${scenarioName} rep ${rep}: completed job has no result.sizeBytes/sha256/resultPath`);
    }
    if (job.result?.rowCount !== scenario.rows) {
      failures.push(`${engine.name} ${scenarioName} rep ${rep}: job reports ${job.result?.rowCount} rows, expected ${scenario.rows}`);
    }
    raw.client.rowsPerSecond = scenario.rows / clientSeconds;
    raw.client.mibPerSecond = mib(size) / clientSeconds;
    Object.assign(raw.fetcher, {
      workerSeconds: (Date.parse(job.completedAt) - Date.parse(job.startedAt)) / 1000,
      queuedSeconds: (Date.parse(job.startedAt) - Date.parse(job.createdAt)) / 1000,
      rowsPerSecond: scenario.rows / run.seconds,
      mibPerSecond: mib(size) / run.seconds,
      peakRssBytes: run.peak.hwm,
      rssAtCompletionBytes: run.peak.rss,
      idleHwmBytes: run.fetcher.idle.hwm,
      idleRssBytes: run.fetcher.idle.rss,
      sizeBytes: size,
      rowCount: job.result?.rowCount,
      sha256: job.result?.sha256,
    });
    raw.ratio = raw.fetcher.rowsPerSecond / raw.client.rowsPerSecond;
    // The command is measured on the JSON document (its output is hashed against the job's).
    if (output === 'json') {
      raw.cli = await cliRepetition({ root, engine, database, scenario, job, sizeBytes: size, tempDirs });
      checkInterrupted();
      if (raw.cli.failure) failures.push(`${engine.name} ${scenarioName} rep ${rep}: fetcher extract: ${raw.cli.failure}`);
      else raw.cliRatio = raw.cli.rowsPerSecond / raw.client.rowsPerSecond;
    }
    try {
      raw.verify = await verifyJobResult(job, run.fetcher.env, scenario.rows);
      checkInterrupted();
    } catch (error) {
      if (interrupted) throw error;
      raw.verify = { ok: false, problems: [`cannot open the stored object: ${error.message}`] };
    }
    if (!raw.verify.ok) failures.push(`${engine.name} ${scenarioName} rep ${rep}: verification failed: ${raw.verify.problems.join('; ')}`);
    reps.push(raw);
    log(formatRep(rep, options.reps, raw, engine.clientLabel));
    if (!raw.verify.ok) for (const problem of raw.verify.problems) log(`    FAIL: ${problem}`);
    rmSync(run.dataDir, { recursive: true, force: true });
    tempDirs.delete(run.dataDir);
    if (options.profile) outcome.profiles.push({ rep, pid: run.fetcher.pid });
  }

  const completed = reps.filter((r) => r.fetcher.peakRssBytes !== undefined);
  if (completed.length === 0) return outcome;
  const sizes = completed.map((r) => r.fetcher.sizeBytes);
  outcome.plaintextBytes = sizes[0];
  outcome.summary = summarize(completed);
  log(
    `  result ${mib(sizes[0]).toFixed(1)} MiB plaintext ${output} (${sizes[0].toLocaleString('en-US')} bytes` +
      `${new Set(sizes).size > 1 ? `; sizes differ between reps: ${[...new Set(sizes)].join(', ')}` : ''}), ` +
      `${completed.filter((r) => r.verify?.ok).length}/${completed.length} reps verified${options.profile ? ' · profiled run: --cpu-prof slows Fetcher' : ''}`,
  );
  if (scenarioName === 'large' && (sizes[0] < LARGE_RANGE[0] || sizes[0] > LARGE_RANGE[1])) {
    log(`  WARN: the large result is outside ${mib(LARGE_RANGE[0])}–${mib(LARGE_RANGE[1])} MiB; adjust LARGE_ROWS`);
  }
  for (const line of formatSummary(outcome.summary, { clientLabel: engine.clientLabel, reps: completed.length })) log(line);
  if (outcome.summary.peakRssBytes.max > 300 * MiB) log('  WARN: worker peak RSS above the 300 MiB budget');
  // Each Fetcher wrote its profile when it exited; the top list follows the table.
  outcome.profiles = outcome.profiles.map(({ rep, pid }) => ({ rep, pid, ...printProfile(pid, rep) }));
  return outcome;
}

async function cleanUp() {
  for (const child of liveCliRuns()) child.kill('SIGKILL');
  await killAllFetchers();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
  while (created.length > 0) {
    const engine = created.pop();
    if (options.keep) {
      log(`kept ${engine.name} database ${database}`);
      continue;
    }
    await engine.dropDatabase(database).catch((error) => warn(`could not drop ${engine.name} database ${database}: ${error.message}`));
  }
}

// Ctrl-C / SIGTERM: stop the Fetcher of the repetition under way; the run then unwinds through the
// same clean-up as a failure (databases dropped unless --keep, data directories removed).
let interrupted;
const checkInterrupted = () => {
  if (interrupted) throw new Error(`interrupted by ${interrupted}`);
};
function interrupt(signal) {
  if (interrupted) return;
  interrupted = signal;
  warn(`\n${signal}: stopping Fetcher and dropping the bench databases…`);
  killAllFetchers();
  for (const child of liveCliRuns()) child.kill('SIGINT');
  // Should the run not unwind by itself, clean up and leave anyway.
  setTimeout(() => cleanUp().finally(() => process.exit(130)), 60_000).unref();
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => interrupt(signal));

async function main() {
  const startedAt = new Date();
  const machine = await machineInfo(options.engines);
  const git = gitInfo(root);
  log(
    `machine: ${machine.cores} cores (${machine.model}), ${(machine.totalMemoryBytes / 1024 ** 3).toFixed(1)} GiB, node ${machine.node}, ` +
      `load ${machine.loadAverageAtStart.join(' ')}`,
  );
  log(
    `servers: ${options.engines.map((name) => `${name === 'postgres' ? 'PostgreSQL' : 'MariaDB'} ${machine[name]}`).join(', ')}` +
      ` · commit ${git ? `${git.commit}${git.dirty ? ' (+ uncommitted changes)' : ''}` : 'unknown'}`,
  );
  log(
    `${options.reps} paired rep(s) per engine × scenario (client to /dev/null, then a fresh Fetcher: POST→completed); ` +
      `MiB/s is of the plaintext result (every part of a per-table one) for both; database ${database}`,
  );

  const results = [];
  try {
    for (const name of options.engines) {
      const engine = ENGINES[name];
      checkInterrupted();
      await engine.createDatabase(database);
      created.push(engine);
      for (const scenario of options.scenarios) {
        checkInterrupted();
        if (scenario === 'large' && !engine.large) continue;
        results.push(...(await runScenario(engine, scenario)));
      }
    }
  } catch (error) {
    if (interrupted) log(`\ninterrupted by ${interrupted}`);
    else failures.push(`error: ${error.stack ?? error.message}`);
  } finally {
    await cleanUp();
  }
  if (interrupted) process.exit(130);

  if (options.json) {
    mkdirSync(resolve(options.json, '..'), { recursive: true });
    const report = {
      timestamp: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      git,
      machine,
      options: {
        engines: options.engines,
        scenarios: options.scenarios,
        reps: options.reps,
        rows: options.rows,
        largeRows: LARGE_ROWS,
        formats: options.formats,
        profile: options.profile ?? null,
      },
      database,
      results,
      failures,
      ok: failures.length === 0,
    };
    writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
    log();
    log(`wrote ${options.json}`);
  }
  if (failures.length > 0) {
    log();
    for (const failure of failures) log(`FAIL: ${failure}`);
    process.exitCode = 1;
  }
}

await main();
