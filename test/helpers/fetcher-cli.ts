import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `fetcher` command, as the package's bin runs it. */
export const FETCHER_BIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../dist/cli/fetcher.js');

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly elapsedMs: number;
}

export interface CliOptions {
  /** Added to a minimal environment (PATH and TZ only: nothing of the test process leaks in). */
  readonly env?: Record<string, string>;
  readonly stdin?: string;
  readonly cwd?: string;
  /** Called once the child runs (to signal it, for example). */
  readonly started?: (child: ChildProcess) => void;
}

/** Runs `fetcher <args>` to its end. */
export function runFetcherCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return runProgram(process.execPath, [FETCHER_BIN, ...args], options);
}

/** Runs another program (a shell, `script`) to its end, with the same minimal environment. */
export function runCommandLine(program: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runProgram(program, args, { env });
}

function runProgram(program: string, args: readonly string[], options: CliOptions): Promise<CliRun> {
  const started = Date.now();
  const child = spawn(program, [...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.stdin ?? '');
  options.started?.(child);
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout: Buffer.concat(stdout), stderr, elapsedMs: Date.now() - started }));
  });
}

/** The one-line JSON summary `fetcher extract` ends with on stderr. */
export function summaryOf(run: CliRun): Record<string, unknown> {
  const line = run.stderr.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Record<string, unknown>;
}
