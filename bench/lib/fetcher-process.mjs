// One Fetcher process for one repetition, started as `npm start` and the image start it
// (dist/main.js with the shipped NODE_OPTIONS), so that its VmHWM is that repetition's peak.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fetcherNodeOptions } from '../../dist/bootstrap/runtime-flags.js';

const live = new Set();

/** Every Fetcher still running; the bench kills them on any way out. */
export function liveFetchers() {
  return [...live];
}

export async function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** VmRSS and VmHWM (peak resident set) of `pid`, in bytes. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

// The two warnings every development boot prints; anything else Fetcher says is passed through.
const EXPECTED_NOISE = [/APP_ENC_KEY is not set: generated a development key/, /AUTH_MODE=none: every caller acts as the operator/];

/**
 * Starts Fetcher on a free port with `dataDir` and waits for /health. `nodeArgs` go before the
 * script (e.g. --cpu-prof); `extraEnv` is added to its environment (a worker, FETCHER_ROLE=worker,
 * gets the port as WORKER_HTTP_PORT). Returns { pid, base, env, idle: { rss, hwm }, exited, stop() }.
 */
export async function startFetcher({ root, dataDir, nodeArgs = [], extraEnv = {}, say = (line) => process.stderr.write(`${line}\n`) }) {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    // Measured as shipped: `npm start` and the image run with these heap settings.
    NODE_OPTIONS: fetcherNodeOptions(process.env),
    ...extraEnv,
    [extraEnv.FETCHER_ROLE === 'worker' ? 'WORKER_HTTP_PORT' : 'PORT']: String(port),
  };
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'dist/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  const recent = [];
  let partial = '';
  const onOutput = (data) => {
    const lines = (partial + data.toString('utf8')).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      recent.push(line);
      if (recent.length > 40) recent.shift();
      if (line.trim() && !EXPECTED_NOISE.some((noise) => noise.test(line))) say(`  [fetcher ${child.pid}] ${line}`);
    }
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = new Promise((done) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      done({ code, signal });
    });
  });
  let exitInfo;
  exited.then((info) => {
    exitInfo = info;
  });

  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    if (exitInfo) throw new Error(`Fetcher exited during boot (${exitInfo.signal ?? `code ${exitInfo.code}`}):\n${recent.join('\n')}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // Not listening yet: ask again below.
    }
    if (i > 600) {
      await stop();
      throw new Error(`Fetcher did not answer /health within 60 s:\n${recent.join('\n')}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  // Read before any connection exists: what the process holds after boot.
  const idle = memoryOf(child.pid);

  async function stop(timeoutMs = 60_000) {
    if (exitInfo) return exitInfo;
    child.kill('SIGTERM'); // a graceful exit, which is also when --cpu-prof writes its profile
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    pid: child.pid,
    base,
    env,
    idle,
    memory: () => memoryOf(child.pid),
    isRunning: () => exitInfo === undefined,
    exitInfo: () => exitInfo,
    recentOutput: () => recent.join('\n'),
    stop,
  };
}

/** Kills what is left (failure, Ctrl-C): SIGTERM, then SIGKILL after a few seconds. */
export async function killAllFetchers() {
  await Promise.all(
    liveFetchers().map(
      (child) =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(timer);
            done();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** POSTs `body` as JSON; { status, json (when the answer parses), text }. */
export async function postJson(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: the caller reports the text.
  }
  return { status: response.status, json, text };
}
