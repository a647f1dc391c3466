// The Node.js line Fetcher runs on (.node-version) on a machine whose own Node.js is older: the
// binary comes from the npm registry's per-platform `node-<os>-<arch>` package, locked in
// runtime/package-lock.json and installed into runtime/node_modules. Its own tiny lock (rather than
// a dependency of the project) lets it be installed before the project's `npm ci`, so that npm
// itself, the engines checks and any native build already run on the new line.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const runtimeDir = join(root, 'runtime');
const binDir = join(runtimeDir, 'node_modules', '.bin');

/** The major version the project runs on, from .node-version (also read by nvm, fnm and the image spec). */
export function projectLine() {
  return Number.parseInt(readFileSync(join(root, '.node-version'), 'utf8').trim(), 10);
}

export function runsOnProjectLine(version = process.versions.node) {
  return Number.parseInt(version.split('.')[0], 10) >= projectLine();
}

/** True when `dir`'s node_modules was installed from its package-lock.json as it is now (npm's own marker). */
export function installedFromLock(dir) {
  const marker = join(dir, 'node_modules', '.package-lock.json');
  return existsSync(marker) && statSync(join(dir, 'package-lock.json')).mtimeMs <= statSync(marker).mtimeMs;
}

/**
 * The project's Node.js binary, installing it first when it is missing or its lock changed; exits
 * with a message saying what to install where the registry has no package for this platform.
 */
export function ensureProjectRuntime() {
  if (!existsSync(join(binDir, 'node')) || !installedFromLock(runtimeDir)) {
    console.error(`[fetcher] installing Node.js ${projectLine()} into runtime/ (npm ci)…`);
    // npm's own output goes to stderr: stdout may be what `eval "$(node scripts/run.mjs env)"` runs.
    const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: runtimeDir,
      stdio: ['ignore', process.stderr, process.stderr],
    });
    if (install.status !== 0) process.exit(install.status ?? 1);
  }
  const binary = join(binDir, 'node');
  if (!existsSync(binary)) {
    console.error(
      `[fetcher] Fetcher runs on Node.js ${projectLine()} or newer; this machine has ${process.version} and the ` +
        `npm registry has no Node.js ${projectLine()} package for ${process.platform}-${process.arch}. ` +
        'Install it (nvm install, or fnm use, reads .nvmrc / .node-version) and run the command again.',
    );
    process.exit(1);
  }
  return realpathSync(binary);
}

/**
 * The environment under which every program started from here (npm, npx, vitest, node-gyp, the
 * service) runs on that binary: its folder first on PATH, and its headers for native builds so
 * that node-gyp neither downloads them nor takes the machine's older ones (npm's `nodedir`).
 */
export function projectRuntimeEnv(binary, env = process.env) {
  const packageDir = dirname(dirname(binary));
  return {
    ...env,
    PATH: [binDir, env.PATH].filter(Boolean).join(delimiter),
    npm_config_nodedir: packageDir,
    ...(env.NODE ? { NODE: binary } : {}),
    ...(env.npm_node_execpath ? { npm_node_execpath: binary } : {}),
  };
}

/** The version a binary reports, for the one line that says which Node.js runs. */
export function versionOf(binary) {
  return spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
}
