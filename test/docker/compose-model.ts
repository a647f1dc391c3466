import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument, type Document } from 'yaml';

/**
 * docker/compose.yml read the way Compose reads it: a strict YAML parse (merge keys resolved),
 * then `${VAR:-default}` interpolation with the variables unset, as on a fresh checkout.
 */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const COMPOSE_PATH = join(REPO_ROOT, 'docker', 'compose.yml');
/** Relative paths in the compose file (build context, bind mounts) resolve against its folder. */
export const COMPOSE_DIR = dirname(COMPOSE_PATH);

/** Duplicate keys are errors, not last-one-wins; merge keys (`<<: *anchor`) are resolved as Compose does. */
export const STRICT_YAML = { uniqueKeys: true, strict: true, prettyErrors: true, merge: true } as const;

export function parseStrict(text: string): { doc: Document; problems: string[] } {
  const doc = parseDocument(text, STRICT_YAML);
  return { doc, problems: [...doc.errors, ...doc.warnings].map((problem) => problem.message) };
}

export type DependsOn = string[] | Record<string, { condition?: string; required?: boolean } | null>;
export type PortSpec = string | number | { target: number; published?: string | number; host_ip?: string };
export type VolumeSpec = string | { type?: string; source?: string; target: string };

export interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  pull_policy?: string;
  profiles?: string[];
  depends_on?: DependsOn;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: PortSpec[];
  volumes?: VolumeSpec[];
}

export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const VARIABLE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Compose interpolation: `$$` is a literal `$`; `${V}`, `$V`, `${V:-d}`, `${V-d}`, `${V:?msg}` read `env`. */
export function interpolate(value: unknown, env: Record<string, string | undefined> = {}): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (match, braced?: string, operator?: string, operand?: string, bare?: string) => {
      if (match === '$$') return '$';
      const name = (braced ?? bare) as string;
      const current = env[name];
      if (operator === ':-') return current ? current : (operand ?? '');
      if (operator === '-') return current ?? operand ?? '';
      if (operator?.endsWith('?') && !current) throw new Error(`${name} is required: ${operand}`);
      return current ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]));
  }
  return value;
}

/** The committed compose file, parsed strictly and interpolated; throws on any parse problem. */
export function loadCompose(text = readFileSync(COMPOSE_PATH, 'utf8')): ComposeFile {
  const { doc, problems } = parseStrict(text);
  if (problems.length > 0) throw new Error(`docker/compose.yml does not parse strictly:\n${problems.join('\n')}`);
  return interpolate(doc.toJS()) as ComposeFile;
}

/** depends_on in either form, as service → condition (the list form means service_started). */
export function dependenciesOf(service: ComposeService): Map<string, string> {
  const dependsOn = service.depends_on;
  if (dependsOn === undefined) return new Map();
  if (Array.isArray(dependsOn)) return new Map(dependsOn.map((name) => [name, 'service_started']));
  return new Map(Object.entries(dependsOn).map(([name, spec]) => [name, spec?.condition ?? 'service_started']));
}

/** environment in either form (map, or a list of NAME=value). */
export function environmentOf(service: ComposeService): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, value === null ? '' : String(value)]));
}

export interface PublishedPort {
  readonly hostIp?: string;
  /** Undefined: Docker picks a free host port. */
  readonly hostPort?: number;
  readonly containerPort: number;
}

/** ports in the short (`[ip:][host:]container[/proto]`) or the long form. */
export function portsOf(service: ComposeService): PublishedPort[] {
  return (service.ports ?? []).map((spec) => {
    if (typeof spec === 'object') {
      return {
        hostIp: spec.host_ip,
        hostPort: spec.published === undefined ? undefined : Number(spec.published),
        containerPort: Number(spec.target),
      };
    }
    const parts = String(spec)
      .replace(/\/(tcp|udp)$/, '')
      .split(':');
    const containerPort = Number(parts.pop());
    const host = parts.pop();
    const hostIp = parts.pop();
    return { hostIp, hostPort: host ? Number(host) : undefined, containerPort };
  });
}

export interface Mount {
  readonly kind: 'bind' | 'volume';
  readonly source: string;
  readonly target: string;
}

/** volumes in the short or the long form; a source starting with `.`, `/` or `~` is a bind mount. */
export function mountsOf(service: ComposeService): Mount[] {
  return (service.volumes ?? []).map((spec) => {
    if (typeof spec === 'object') {
      const source = spec.source ?? '';
      return { kind: spec.type === 'bind' ? 'bind' : 'volume', source, target: spec.target };
    }
    const [source, target] = spec.split(':');
    // A lone path is an anonymous volume at that path.
    if (target === undefined) return { kind: 'volume', source: '', target: source };
    return { kind: /^[./~]/.test(source) ? 'bind' : 'volume', source, target };
  });
}
