#!/usr/bin/env node
// One entry point behind `npm start`, `npm test`, `npm run result`, `npm run rotate-credentials` and
// `npm run bench`: it installs dependencies when they are missing or stale, builds when sources
// changed, makes sure the local services the tests use are running, then runs the command. A fresh
// clone needs nothing else.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker) || statSync(join(root, 'package-lock.json')).mtimeMs > statSync(marker).mtimeMs) {
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

function exec(cmd, cmdArgs, env = {}) {
  const child = spawn(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

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
    exec('npx', ['vitest', 'run', ...args], { TZ: 'UTC' });
    break;
  case 'result':
    exec(process.execPath, ['dist/cli/show-result.js', ...args]);
    break;
  case 'rotate-credentials':
    exec(process.execPath, ['dist/cli/rotate-credentials.js', ...args]);
    break;
  case 'bench':
    run('bash', ['scripts/ensure-services.sh']);
    exec(process.execPath, ['bench/extraction-bench.mjs', ...args], { TZ: 'UTC' });
    break;
  default:
    console.error(`unknown command ${command}; use start, test, result, rotate-credentials or bench`);
    process.exit(2);
}
