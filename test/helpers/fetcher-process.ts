import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetcherNodeOptions } from '../../src/bootstrap/runtime-flags.js';
import { testLogEnv } from './test-log-file.js';

const MAIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../dist/main.js');

export interface FetcherProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** What it printed (stdout, stderr) and, when it logs to a file (LOG_FILE), that file's lines. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<number | string | null>;
}

/** Starts the compiled Fetcher (`dist/main.js`) as its own process and waits for /health. */
export async function startFetcherProcess(env: Record<string, string>, port: number, timeoutMs = 30_000): Promise<FetcherProcess> {
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    TZ: 'UTC',
    NODE_ENV: 'test',
    ...testLogEnv('warn'),
    NODE_OPTIONS: fetcherNodeOptions(env),
    ...env,
  };
  const child = spawn(process.execPath, [MAIN], {
    // Launched like `npm start` and the image launch it: with Fetcher's heap settings.
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = fullEnv.LOG_FILE;
  const output = () => (logFile !== undefined && existsSync(logFile) ? log + readFileSync(logFile, 'utf8') : log);
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`fetcher exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`fetcher did not become healthy in ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    child,
    url,
    output,
    stop: (graceMs = 10_000) =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode ?? child.signalCode);
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          done(code ?? signal);
        });
        child.kill('SIGTERM');
      }),
  };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
