import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { EnvironmentVariables } from '../../src/config/environment.dto.js';
import { FetcherRole } from '../../src/config/fetcher-role.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import {
  COMPOSE_DIR,
  COMPOSE_PATH,
  REPO_ROOT,
  dependenciesOf,
  environmentOf,
  loadCompose,
  mountsOf,
  parseStrict,
  portsOf,
  type ComposeService,
} from './compose-model.js';

const compose = loadCompose();
const services = compose.services;
const names = Object.keys(services);

const DISTRIBUTED_STACK = ['postgres', 'redis', 'minio', 'rabbitmq', 'manager', 'worker'];
const ENGINES = ['mariadb', 'sqlserver', 'sqlserver-init', 'oracle', 'mongodb'];
const FETCHER_SERVICES = ['manager', 'worker'];

/** Every variable Fetcher reads: the validated ones, plus the two families read by prefix. */
function fetcherVariable(): (name: string) => boolean {
  const validated = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map((metadata) => metadata.propertyName),
  );
  const internalSource = readFileSync(join(REPO_ROOT, 'src/config/internal-datasources.config.ts'), 'utf8');
  const datasourceFields = new Set([...internalSource.matchAll(/(?:read|variable)\('([A-Z_]+)'\)/g)].map((match) => match[1]));
  return (name) =>
    validated.has(name) ||
    /^APP_ENC_KEY_[A-Za-z0-9._-]{1,32}$/.test(name) ||
    [...datasourceFields].some((field) => new RegExp(`^DATASOURCE_[A-Za-z0-9_]+_${field}$`).test(name));
}

function isPinned(image: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : '';
  return tag !== '' && !/latest/i.test(tag);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('docker/compose.yml', () => {
  it('is YAML a strict loader accepts: no duplicate keys, no errors, no warnings', () => {
    const { problems } = parseStrict(readFileSync(COMPOSE_PATH, 'utf8'));
    expect(problems).toEqual([]);
  });

  it('would be refused by the same parse if a block were pasted twice (the bug this file had)', () => {
    const pasted = ['services:', '  manager:', '    image: a:1', '    environment: { A: "1" }', '    environment: { B: "2" }', ''].join(
      '\n',
    );
    expect(parseStrict(pasted).problems.join('\n')).toMatch(/unique/i);
  });

  it('resolves every merge key: no `<<` is left for Compose to read as a variable or an option', () => {
    expect(JSON.stringify(compose)).not.toContain('"<<"');
  });

  it('gives every service an image or a build, and pins every image to a tag that is not latest', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.image ?? service.build, `${name} has neither image nor build`).toBeDefined();
      if (service.image !== undefined) expect(isPinned(service.image), `${name}: ${service.image} is not pinned`).toBe(true);
    }
  });

  it('names only defined services in depends_on, and waits on service_healthy only where there is a healthcheck', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of dependenciesOf(service)) {
        expect(names, `${name} depends on ${dependency}`).toContain(dependency);
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') {
          const healthcheck = services[dependency].healthcheck;
          expect(healthcheck?.test, `${name} waits for ${dependency} to be healthy, which has no healthcheck`).toBeDefined();
          expect(healthcheck?.disable).not.toBe(true);
        }
      }
    }
  });

  it('starts the Manager and the Worker only once every service they use is healthy', () => {
    for (const name of FETCHER_SERVICES) {
      const dependencies = dependenciesOf(services[name]);
      expect([...dependencies.keys()].sort(), name).toEqual(['minio', 'postgres', 'rabbitmq', 'redis']);
      for (const [dependency, condition] of dependencies) expect(condition, `${name} → ${dependency}`).toBe('service_healthy');
    }
  });

  it('starts exactly the distributed stack by default, and adds exactly the engines with --profile engines', () => {
    const profiled = (service: ComposeService) => (service.profiles ?? []).length > 0;
    expect(names.filter((name) => !profiled(services[name])).sort()).toEqual([...DISTRIBUTED_STACK].sort());
    expect(names.filter((name) => services[name].profiles?.includes('engines')).sort()).toEqual([...ENGINES].sort());
    expect(new Set(names.flatMap((name) => services[name].profiles ?? []))).toEqual(new Set(['engines']));
    // A default service that needed a profiled one would make a plain `up` fail.
    for (const name of DISTRIBUTED_STACK) {
      for (const dependency of dependenciesOf(services[name]).keys())
        expect(DISTRIBUTED_STACK, `${name} → ${dependency}`).toContain(dependency);
    }
  });

  it('runs the Manager and the Worker from one image that only the manager service builds', () => {
    const image = services.manager.image;
    expect(image).toBeDefined();
    expect(names.filter((name) => services[name].image === image).sort()).toEqual(['manager', 'worker']);
    expect(services.manager.build).toBeDefined();
    expect(services.worker.build).toBeUndefined();
    expect(names.filter((name) => services[name].build !== undefined)).toEqual(['manager']);
    // The worker must not try a registry for an image that exists only once the manager is built.
    expect(services.worker.pull_policy).toBe('never');

    const build = services.manager.build as { context: string; dockerfile: string };
    const context = resolve(COMPOSE_DIR, build.context);
    expect(context + sep).toBe(REPO_ROOT);
    expect(existsSync(join(context, build.dockerfile)), build.dockerfile).toBe(true);
    expect(environmentOf(services.manager).FETCHER_ROLE).toBe(FetcherRole.Manager);
    expect(environmentOf(services.worker).FETCHER_ROLE).toBe(FetcherRole.Worker);
  });

  it('bind-mounts only fixtures that exist under docker/fixtures, mounts every one of them, and declares its named volumes', () => {
    const fixturesDir = join(COMPOSE_DIR, 'fixtures');
    const mounted = new Set<string>();
    for (const [name, service] of Object.entries(services)) {
      for (const mount of mountsOf(service)) {
        if (mount.kind === 'volume') {
          if (mount.source !== '') expect(Object.keys(compose.volumes ?? {}), `${name}: volume ${mount.source}`).toContain(mount.source);
          continue;
        }
        const source = resolve(COMPOSE_DIR, mount.source);
        expect(relative(fixturesDir, source).startsWith('..'), `${name} mounts ${mount.source} from outside docker/fixtures`).toBe(false);
        expect(existsSync(source), `${name} mounts ${mount.source}, which does not exist`).toBe(true);
        mounted.add(source);
      }
    }
    expect([...mounted].sort()).toEqual(filesUnder(fixturesDir).sort());
  });

  it('sets in the Fetcher services only variables Fetcher reads, and that configuration boots in their role', () => {
    const reads = fetcherVariable();
    // Guard the guard: the list really is Fetcher's, not empty or everything.
    expect(reads('DATABASE_URL') && reads('FETCHER_ROLE') && reads('DATASOURCE_SAMPLE_HOST')).toBe(true);
    expect(reads('DATABSE_URL') || reads('POSTGRES_PASSWORD')).toBe(false);

    for (const name of FETCHER_SERVICES) {
      const environment = environmentOf(services[name]);
      expect(
        Object.keys(environment).filter((variable) => !reads(variable)),
        `${name}: variables Fetcher does not read`,
      ).toEqual([]);
      const config = loadAppConfig(environment);
      expect(config.role).toBe(environment.FETCHER_ROLE);
      expect(config.database.kind).toBe('postgres');
      expect(config.storage.kind).toBe('s3');
      expect(config.events.transport).toBe('rmq');
    }
  });

  it("publishes the Manager's API port and the Worker's health port as src/config sets them", () => {
    const manager = loadAppConfig(environmentOf(services.manager));
    const worker = loadAppConfig(environmentOf(services.worker));
    expect(portsOf(services.manager).map((port) => port.containerPort)).toEqual([manager.http.port]);
    expect(portsOf(services.worker).map((port) => port.containerPort)).toEqual([worker.http.workerPort]);
    expect(manager.http.port).toBe(4006);
    expect(worker.http.workerPort).toBe(4007);
    // A published port reaches the container's own interface, not its loopback: both listen on every interface.
    expect([manager.http.host, worker.http.host]).toEqual(['0.0.0.0', '0.0.0.0']);
    // A fixed host port would stop `--scale worker=N`.
    expect(portsOf(services.worker).every((port) => port.hostPort === undefined)).toBe(true);
  });

  it('binds no host port twice, and every one to the loopback address only', () => {
    const published = names.flatMap((name) => portsOf(services[name]).map((port) => ({ name, ...port })));
    const fixed = published.filter((port) => port.hostPort !== undefined).map((port) => port.hostPort);
    expect(new Set(fixed).size).toBe(fixed.length);
    for (const port of published) expect(port.hostIp, `${port.name}:${port.containerPort}`).toBe('127.0.0.1');
  });
});
