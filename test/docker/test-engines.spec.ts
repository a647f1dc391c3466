import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseMongoUrl } from '../helpers/mongo-database.js';
import { parseOracleUrl } from '../helpers/oracle-database.js';
import { parseSqlServerUrl } from '../helpers/sqlserver-database.js';
import { COMPOSE_DIR, REPO_ROOT, environmentOf, loadCompose, portsOf } from './compose-model.js';

/**
 * scripts/test-engines.sh without Docker: on a PATH that holds only stand-ins for `docker` and
 * `npx` (or nothing at all), so every run is fast and nothing real is started.
 */
const SCRIPT = join(REPO_ROOT, 'scripts', 'test-engines.sh');
const SEP = '\u001f';

const BASH = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'bash'))
  .find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }) as string;

/** Logs its arguments; `compose version`, `info` and `compose … up` exit with FAKE_*_STATUS. */
const FAKE_DOCKER = `#!${BASH}
printf '%s${SEP}' "$@" >> "$FAKE_LOG/docker.log"; printf '\\n' >> "$FAKE_LOG/docker.log"
[ "$1 $2" = "compose version" ] && exit "\${FAKE_COMPOSE_STATUS:-0}"
[ "$1" = info ] && exit "\${FAKE_INFO_STATUS:-0}"
for arg in "$@"; do [ "$arg" = up ] && exit "\${FAKE_UP_STATUS:-0}"; done
exit 0
`;

/** Logs its arguments and the variables the gated suites read; exits with FAKE_VITEST_STATUS. */
const FAKE_NPX = `#!${BASH}
printf '%s${SEP}' "$@" > "$FAKE_LOG/npx.args"
printf '%s\\n' "TZ=$TZ" "TEST_MSSQL_URL=$TEST_MSSQL_URL" "TEST_ORACLE_URL=$TEST_ORACLE_URL" "TEST_MONGO_URL=$TEST_MONGO_URL" \\
  "TEST_MSSQL_CA=\${TEST_MSSQL_CA-<unset>}" > "$FAKE_LOG/npx.env"
exit "\${FAKE_VITEST_STATUS:-0}"
`;

function whichNpm(): string {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'npm'))
    .find((path) => existsSync(path));
  if (!found) throw new Error('npm is not on PATH');
  return found;
}

const GATE = /\b(TEST_MSSQL_URL|TEST_ORACLE_URL|TEST_MONGO_URL|describeWithSqlServer)\b/;

/** Spec files whose code (not a comment) reads one of the gating variables. */
function gatedSuites(): string[] {
  const specs = (dir: string): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : specs(path);
      return path.endsWith('.spec.ts') ? [path] : [];
    });
  return [...specs(join(REPO_ROOT, 'src')), ...specs(join(REPO_ROOT, 'test'))]
    .map((path) => relative(REPO_ROOT, path).split('\\').join('/'))
    .filter((path) => !path.startsWith('test/docker/'))
    .filter((path) =>
      readFileSync(join(REPO_ROOT, path), 'utf8')
        .split('\n')
        .some((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && GATE.test(line)),
    )
    .sort();
}

describe('scripts/test-engines.sh (npm run test:engines)', () => {
  let dir: string;
  let bin: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetcher-test-engines-'));
    bin = join(dir, 'bin');
    mkdirSync(bin);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function install(name: string, text: string): void {
    writeFileSync(join(bin, name), text, { mode: 0o755 });
  }

  function run(args: string[] = [], env: Record<string, string> = {}) {
    const result = spawnSync(BASH, [SCRIPT, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: bin, HOME: dir, FAKE_LOG: dir, TEST_MSSQL_CA: '/nowhere/ca.pem', ...env },
      timeout: 30_000,
    });
    const read = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : undefined);
    const dockerCalls = (read('docker.log') ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(SEP).slice(0, -1));
    const npxArgs = read('npx.args')?.split(SEP).slice(0, -1);
    const npxEnv = read('npx.env');
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      dockerCalls,
      npxArgs,
      npxEnv:
        npxEnv === undefined
          ? undefined
          : Object.fromEntries(
              npxEnv
                .trim()
                .split('\n')
                .map((line) => line.split(/=(.*)/s).slice(0, 2)),
            ),
    };
  }

  it('exits 2 and says it needs Docker, the compose plugin, memory and the ports when docker is not on PATH', () => {
    const result = run();
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('docker is not on PATH');
    expect(result.stderr).toMatch(/Docker Engine/);
    expect(result.stderr).toMatch(/compose plugin/);
    expect(result.stderr).toMatch(/GB of memory/);
    for (const port of ['1433', '1521', '27017']) expect(result.stderr).toContain(`127.0.0.1:${port}`);
  });

  it('is what `npm run test:engines` runs, and says what it needs through npm too', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['test:engines']).toMatch(/scripts\/test-engines\.sh/);
    // Only node and npm on PATH (a real docker next to them could start containers): a newcomer without Docker.
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync(realpathSync(whichNpm()), join(bin, 'npm'));
    symlinkSync(BASH, join(bin, 'bash'));
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const npm = spawnSync(join(bin, 'npm'), ['run', '--silent', 'test:engines'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { PATH: bin, HOME: dir },
      timeout: 30_000,
    });
    expect(npm.status).toBe(2);
    expect(npm.stderr).toContain('npm run test:engines needs:');
  });

  it('exits 2 naming the compose plugin when docker has no `docker compose`, and names the daemon when it does not answer', () => {
    install('docker', FAKE_DOCKER);
    const noCompose = run([], { FAKE_COMPOSE_STATUS: '1' });
    expect(noCompose.status).toBe(2);
    expect(noCompose.stderr).toMatch(/not its compose plugin/);

    const noDaemon = run([], { FAKE_INFO_STATUS: '1' });
    expect(noDaemon.status).toBe(2);
    expect(noDaemon.stderr).toMatch(/Docker daemon does not answer/);
    for (const result of [noCompose, noDaemon]) expect(result.npxArgs).toBeUndefined();
  });

  it('starts the engines, waits for them, and runs every gated suite with TZ=UTC against them, leaving them running', () => {
    install('docker', FAKE_DOCKER);
    install('npx', FAKE_NPX);
    const result = run();
    expect(result.status, result.stderr).toBe(0);

    const compose = ['compose', '-f', join(REPO_ROOT, 'docker', 'compose.yml'), '--profile', 'engines'];
    const up = result.dockerCalls.find((call) => call.includes('up'));
    expect(up?.slice(0, compose.length)).toEqual(compose);
    expect(up?.slice(compose.length, compose.length + 3)).toEqual(['up', '-d', '--wait']);
    const started = up?.slice(compose.length + 3) ?? [];
    expect(started.sort()).toEqual(['mongodb', 'oracle', 'sqlserver']);
    expect(result.dockerCalls).toContainEqual([...compose, 'run', '--rm', '-T', 'sqlserver-init']);
    expect(result.dockerCalls.some((call) => call.includes('rm') && !call.includes('run'))).toBe(false);
    expect(result.stdout).toContain('rm -s -f -v');

    const [vitest, subcommand, ...suites] = result.npxArgs ?? [];
    expect([vitest, subcommand]).toEqual(['vitest', 'run']);
    expect(suites).toEqual(gatedSuites());
    expect(result.npxEnv?.TZ).toBe('UTC');
    // The container's certificate is self-signed: a CA file left in the caller's shell must not apply.
    expect(result.npxEnv?.TEST_MSSQL_CA).toBe('<unset>');
  });

  it('points the suites at the ports, logins and databases that docker/compose.yml and its fixtures set up', () => {
    install('docker', FAKE_DOCKER);
    install('npx', FAKE_NPX);
    const env = run().npxEnv as Record<string, string>;
    const { services } = loadCompose();
    const published = (name: string) => portsOf(services[name]).map((port) => `${port.hostIp}:${port.hostPort}`);

    const mssql = parseSqlServerUrl(env.TEST_MSSQL_URL, '');
    expect(published('sqlserver')).toContain(`${mssql.host}:${mssql.port}`);
    expect(mssql.user).toBe('sa');
    expect(mssql.password).toBe(environmentOf(services.sqlserver).MSSQL_SA_PASSWORD);
    expect(mssql.sslMode).toBe('disable');

    const oracle = parseOracleUrl(env.TEST_ORACLE_URL);
    expect(published('oracle')).toContain(`${oracle.host}:${oracle.port}`);
    const fixture = readFileSync(join(COMPOSE_DIR, 'fixtures', 'oracle', 'init.sql'), 'utf8');
    expect(fixture).toContain(`ALTER SESSION SET CONTAINER = ${oracle.serviceName};`);
    expect(fixture).toContain(`CREATE USER ${oracle.user} IDENTIFIED BY "${oracle.password}"`);
    // Healthy means the suites' login works on their service, with the fixture loaded.
    expect(JSON.stringify(services.oracle.healthcheck?.test)).toContain(
      `${oracle.user}/${oracle.password}@//localhost:1521/${oracle.serviceName}`,
    );

    const mongo = parseMongoUrl(env.TEST_MONGO_URL);
    expect(published('mongodb')).toContain(`${mongo.host}:${mongo.port}`);
    expect([mongo.user, mongo.password]).toEqual([
      environmentOf(services.mongodb).MONGO_INITDB_ROOT_USERNAME,
      environmentOf(services.mongodb).MONGO_INITDB_ROOT_PASSWORD,
    ]);
    expect(mongo.authSource).toBe('admin');

    for (const name of ['sqlserver', 'oracle', 'mongodb']) {
      expect(services[name].profiles).toEqual(['engines']);
      expect(services[name].healthcheck?.test, `${name}: up --wait needs a healthcheck to wait for`).toBeDefined();
    }
  });

  it('with --down removes the engine containers after the run, and exits with vitest’s status', () => {
    install('docker', FAKE_DOCKER);
    install('npx', FAKE_NPX);
    const result = run(['--down', '-t', 'some test'], { FAKE_VITEST_STATUS: '3' });
    expect(result.status).toBe(3);
    expect(result.npxArgs?.slice(-2)).toEqual(['-t', 'some test']);
    const removal = result.dockerCalls.find((call) => call.includes('rm') && !call.includes('run'));
    expect(removal?.slice(removal.indexOf('rm'))).toEqual(['rm', '-s', '-f', '-v', 'sqlserver', 'oracle', 'mongodb', 'sqlserver-init']);
  });

  it('exits 1 without running a suite when the engines do not become healthy', () => {
    install('docker', FAKE_DOCKER);
    install('npx', FAKE_NPX);
    const result = run([], { FAKE_UP_STATUS: '1' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/did not become healthy/);
    expect(result.npxArgs).toBeUndefined();
  });
});
