import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { freePort } from '../helpers/fetcher-process.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const GRACE_MS = 3_000;

/**
 * What an operator does to a `npm start` in a terminal or a process supervisor: `kill <pid>`. The
 * pid is npm's, two or three processes above the server; the server must still stop, within its
 * grace period, and leave nothing behind.
 */
describe('stopping `npm start` by its pid', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-npm-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('kill <pid of npm start> stops the server and frees the port within the grace period', async () => {
    const port = await freePort();
    const launcher = launch('npm', ['start'], port);
    await expectStopsCleanly(launcher, port);
  });

  it('a shell that dies without passing the signal on does not leave the server running', async () => {
    const port = await freePort();
    // `; true` keeps bash from exec-ing node, as some shells and supervisors do.
    const launcher = launch('bash', ['-c', 'node scripts/run.mjs start; true'], port);
    await expectStopsCleanly(launcher, port);
  });

  function launch(command: string, args: string[], port: number): ChildProcess {
    return spawn(command, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        APP_ENC_KEY: TEST_MASTER_KEY,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      },
      stdio: 'ignore',
    });
  }

  async function expectStopsCleanly(launcher: ChildProcess, port: number): Promise<void> {
    await waitFor(() => portAnswers(port), 60_000, `nothing listened on ${port}`);
    const tree = descendantsOf(launcher.pid as number);
    expect(tree.length).toBeGreaterThan(0);
    launcher.kill('SIGTERM');
    // The grace period, plus the time Node and Nest take to close.
    await waitFor(async () => !(await portAnswers(port)), GRACE_MS + 5_000, `port ${port} still bound after SIGTERM`);
    await waitFor(async () => tree.every((pid) => !alive(pid)), 5_000, `processes left running: ${tree.filter(alive).join(', ')}`);
  }
});

function descendantsOf(pid: number): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const [child, ppid] of table) {
      if (ppid === parent) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, failure: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((done) => setTimeout(done, 100));
  }
}
