#!/usr/bin/env node
// One entry point behind `npm start`, `npm test`, `npm run result`, `npm run rotate-credentials` and
// `npm run bench`: it installs dependencies when they are missing or stale, builds when sources
// changed, makes sure the local services the tests use are running, then runs the command. A fresh
// clone needs nothing else.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureProjectRuntime, installedFromLock, projectLine, projectRuntimeEnv, runsOnProjectLine, versionOf } from './node-runtime.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const [command = 'start', ...args] = process.argv.slice(2);

function run(cmd, cmdArgs, options = {}) {
  const result = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), stat.mtimeMs);
}

function ensureDependencies() {
  if (!installedFromLock(root)) {
    console.error('[fetcher] installing dependencies (npm ci)…');
    run('npm', ['ci', '--no-audit', '--no-fund']);
  }
}

function ensureBuild() {
  const output = join(root, 'dist', 'main.js');
  const sources = Math.max(
    newestMtime(join(root, 'src')),
    newestMtime(join(root, 'tsconfig.json')),
    newestMtime(join(root, 'tsconfig.build.json')),
  );
  if (!existsSync(output) || sources > statSync(output).mtimeMs) {
    console.error('[fetcher] building (tsc)…');
    run('npx', ['tsc', '-p', 'tsconfig.build.json']);
  }
}

/**
 * Runs the command as a child that stops with this process: SIGINT, SIGTERM and SIGHUP are passed
 * on, and so is the death of whoever started this one. `npm start` runs `sh -c`, and a shell that
 * dies of npm's SIGTERM without passing it on would leave this process (and the server, its port
 * bound) running as an orphan; the package scripts `exec` to avoid that shell, and the watch on
 * the parent covers a shell or supervisor that does not.
 */
function exec(cmd, cmdArgs, env = {}, stdio = 'inherit') {
  const child = spawn(cmd, cmdArgs, { cwd: root, stdio, env: { ...process.env, ...env } });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid !== parent) child.kill('SIGTERM');
  }, 500);
  orphanWatch.unref();
  child.on('exit', (code, signal) => {
    clearInterval(orphanWatch);
    process.exitCode = code ?? (signal ? 1 : 0);
  });
  return child;
}

/**
 * Suites that hold the service to its own deadlines under its defaults (30 parallel discoveries
 * queued for connection slots within 15 s, a cancel reaching the server within its budget). Run
 * beside the rest of the suite on 2 cores, the other files' load, not Fetcher, decides whether
 * they make it; so the full suite runs them afterwards, one file at a time.
 */
const DEADLINE_SUITES = ['test/e2e/discovery-limits.e2e.spec.ts', 'test/integration/postgres-deadlines.spec.ts'];

/** One vitest run, its output on ours and appended to `output`; resolves with its exit status. */
async function vitestRun(args, env, output) {
  const child = exec('npx', ['vitest', 'run', ...args], env, ['inherit', 'pipe', 'pipe']);
  child.stdout.on('data', (chunk) => (process.stdout.write(chunk), output.write(chunk)));
  child.stderr.on('data', (chunk) => (process.stderr.write(chunk), output.write(chunk)));
  return new Promise((resolveExit) => child.on('close', (status, signal) => resolveExit(status ?? (signal ? 1 : 0))));
}

/**
 * The suite writes what it observed (application logs, the runner's own output) under one run
 * directory; each check of scripts/after-suite then reads it. A check that needs the whole suite
 * (every route exercised) only runs when no file filter was given.
 */
async function runSuite(vitestArgs) {
  const runDir = mkdtempSync(join(tmpdir(), 'fetcher-suite-'));
  const logDir = join(runDir, 'logs');
  mkdirSync(logDir);
  const output = createWriteStream(join(runDir, 'vitest-output.log'));
  const env = { TZ: 'UTC', FETCHER_TEST_LOG_DIR: logDir };
  const fullSuite = vitestArgs.every((arg) => arg.startsWith('-'));
  let code;
  if (fullSuite) {
    code = await vitestRun([...vitestArgs, ...DEADLINE_SUITES.flatMap((file) => ['--exclude', file])], env, output);
    if (code === 0) {
      console.log(`[fetcher] the deadline suites, on their own: ${DEADLINE_SUITES.join(', ')}`);
      code = await vitestRun([...vitestArgs, '--maxWorkers=1', ...DEADLINE_SUITES], env, output);
    }
  } else {
    code = await vitestRun(vitestArgs, env, output);
  }
  await new Promise((resolveEnd) => output.end(resolveEnd));
  let problems = 0;
  if (code === 0) {
    const checkDir = join(root, 'scripts', 'after-suite');
    const checks = existsSync(checkDir)
      ? readdirSync(checkDir)
          .filter((name) => name.endsWith('.mjs'))
          .sort()
      : [];
    for (const name of checks) {
      const { default: check } = await import(join(root, 'scripts', 'after-suite', name));
      const found = await check({ runDir, logDir, fullSuite, root });
      for (const problem of found) console.error(`[after-suite] ${name}: ${problem}`);
      console.error(`[after-suite] ${name}: ${found.length === 0 ? 'passed' : `${found.length} problem(s)`}`);
      problems += found.length;
    }
  }
  if (code === 0 && problems === 0) rmSync(runDir, { recursive: true, force: true });
  else console.error(`[fetcher] suite output kept in ${runDir}`);
  process.exit(code !== 0 ? code : problems > 0 ? 1 : 0);
}

/** Shell-quoted `export` lines: `eval "$(node scripts/run.mjs env)"` puts a shell on the project's Node.js. */
function printEnv(env) {
  const quote = (value) => `'${value.replaceAll("'", "'\\''")}'`;
  for (const name of ['PATH', 'npm_config_nodedir']) console.log(`export ${name}=${quote(env[name])}`);
}

if (!runsOnProjectLine()) {
  // Everything below (npm ci, tsc, vitest, the service) then starts under the project's line.
  const binary = ensureProjectRuntime();
  const env = projectRuntimeEnv(binary);
  if (command === 'env') {
    printEnv(env);
    process.exit(0);
  }
  console.error(
    `[fetcher] Node.js ${process.version} is older than this project's line (${projectLine()}): running under ${versionOf(binary)} from runtime/`,
  );
  exec(binary, [import.meta.filename, command, ...args], env);
} else if (command === 'env') {
  console.log(`# Node.js ${process.version} is on this project's line (${projectLine()}): nothing to change`);
} else {
  await main();
}

async function main() {
  ensureDependencies();
  ensureBuild();
  switch (command) {
    case 'start': {
      const { fetcherNodeOptions } = await import('../dist/bootstrap/runtime-flags.js');
      exec(process.execPath, ['dist/main.js', ...args], { NODE_OPTIONS: fetcherNodeOptions(process.env) });
      break;
    }
    case 'test':
      run('bash', ['scripts/ensure-services.sh']);
      await runSuite(args);
      break;
    case 'result':
      exec(process.execPath, ['dist/cli/fetcher.js', 'result', ...args]);
      break;
    case 'rotate-credentials':
      exec(process.execPath, ['dist/cli/fetcher.js', 'rotate-credentials', ...args]);
      break;
    case 'fetcher':
      exec(process.execPath, ['dist/cli/fetcher.js', ...args]);
      break;
    case 'bench':
      run('bash', ['scripts/ensure-services.sh']);
      // The incremental scenario is its own script: one Fetcher, paired full and incremental jobs.
      if (args[args.indexOf('--scenario') + 1] === 'incremental' && args.includes('--scenario'))
        exec(process.execPath, ['bench/incremental-bench.mjs', ...args], { TZ: 'UTC' });
      // Small jobs: a Manager and two Workers on the PostgreSQL store and Redis, many clients.
      else if (args[args.indexOf('--scenario') + 1] === 'small-jobs' && args.includes('--scenario'))
        exec(process.execPath, ['bench/small-jobs-bench.mjs', ...args], { TZ: 'UTC' });
      else exec(process.execPath, ['bench/extraction-bench.mjs', ...args], { TZ: 'UTC' });
      break;
    default:
      console.error(`unknown command ${command}; use start, test, fetcher, result, rotate-credentials or bench`);
      process.exit(2);
  }
}
