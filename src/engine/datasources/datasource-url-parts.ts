import type { EngineType } from '../connectors/shared/engine-facts.js';
import { InvalidDatasourceError } from '../errors/engine-errors.js';
import type { FetCode } from '../errors/fet-code.js';
import type { DatasourceDescriptor } from './datasource-descriptor.js';

/*
 * What every engine's URL reader (datasource-url-engines.ts) shares: the URL taken apart, the
 * error every refusal is, and the readers of parameter values and TLS files.
 */

/** A datasource URL taken apart and decoded, before any engine reads its parameters. */
export interface UrlParts {
  /** `mongodb+srv://`: the host is a DNS name whose SRV records say where the server is. */
  readonly srv: boolean;
  readonly host: string;
  readonly port?: number;
  readonly userName?: string;
  readonly password?: string;
  /** The decoded path without its leading `/`; '' when the URL has none. */
  readonly path: string;
  /** Query parameters under the engine's own name for them (ParamTable), each given once. */
  readonly params: ReadonlyMap<string, string>;
  /** The text of the file a parameter names; refuses naming the parameter and the path when it cannot be read. */
  readonly readFile: (param: string, path: string) => string;
}

/** The query parameters an engine's URL takes, under the names its own drivers use. */
export interface ParamTable {
  /** Each name a URL may use → the other spellings of it. */
  readonly names: Readonly<Record<string, readonly string[]>>;
  /** How a spelling in the URL is compared with the names (libpq: as written; the others ignore case). */
  readonly fold: (name: string) => string;
  /** Names the engine's drivers know that Fetcher cannot honour, with what to do instead. */
  readonly refused?: Readonly<Record<string, string>>;
  /** Said after the list of accepted names. */
  readonly note?: string;
}

export interface EngineUrl {
  readonly label: string;
  readonly params: ParamTable;
  /** Why a URL naming several hosts (`h1,h2`) is refused. */
  readonly oneHost: string;
  /** Why a host with a backslash in it is refused, when the engine's users write one for a reason. */
  readonly backslashHost?: string;
  readonly build: (parts: UrlParts) => DatasourceDescriptor;
}

export type Ssl = NonNullable<DatasourceDescriptor['ssl']>;
type Pem = Pick<Ssl, 'ca' | 'cert' | 'key'>;

/** Every refusal of a URL: one line, naming what is wrong and never the password. */
export function urlError(problem: string, code?: FetCode): InvalidDatasourceError {
  return new InvalidDatasourceError(`datasource URL: ${problem}`, { code, fields: { url: problem } });
}

/** A value taken from the URL as a message shows it: quoted, short, on one line. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/** One of `allowed` (case ignored, returned as listed); undefined when the parameter is absent. */
export function choiceOf<T extends string>(
  params: ReadonlyMap<string, string>,
  name: string,
  allowed: readonly T[],
  code?: FetCode,
): T | undefined {
  const value = params.get(name);
  if (value === undefined) return undefined;
  const match = allowed.find((choice) => choice.toLowerCase() === value.trim().toLowerCase());
  if (match === undefined) throw urlError(`${name} must be one of ${allowed.join(', ')}, not ${shown(value)}`, code);
  return match;
}

export function flagOf(params: ReadonlyMap<string, string>, name: string): boolean | undefined {
  const value = choiceOf(params, name, ['true', 'false']);
  return value === undefined ? undefined : value === 'true';
}

/** A parameter that must have a value when given (a path, a name). */
export function textOf(params: ReadonlyMap<string, string>, name: string): string | undefined {
  const value = params.get(name)?.trim();
  if (value === '') throw urlError(`${name} needs a value`);
  return value;
}

/** The database the path names, which the engine cannot do without. */
export function databaseOf(parts: UrlParts, form: string): string {
  if (parts.path === '') throw urlError(`the URL names no database; the form is ${form}`);
  return parts.path;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/g;

/** The CERTIFICATE blocks of a PEM file; refused when it has none (a DER file, a key). */
export function certificatesIn(param: string, path: string, text: string): string {
  const blocks = text.match(CERTIFICATE_BLOCK);
  if (blocks === null) throw urlError(`${param}: ${shown(path)} holds no PEM certificate`);
  return blocks.join('\n') + '\n';
}

/**
 * The one PRIVATE KEY block of a PEM file. An encrypted key is refused here: the engine has no
 * passphrase to open it with, and the driver would only fail at connect time.
 */
export function privateKeyIn(param: string, path: string, text: string): string {
  const blocks = text.match(PRIVATE_KEY_BLOCK) ?? [];
  if (blocks.length !== 1) throw urlError(`${param}: ${shown(path)} must hold one PEM private key, it holds ${blocks.length}`);
  const key = blocks[0] as string;
  if (/^-----BEGIN ENCRYPTED|Proc-Type: *4,ENCRYPTED/m.test(key))
    throw urlError(`${param}: the key in ${shown(path)} is encrypted; give it unencrypted`);
  return key + '\n';
}

/** The PEM a TLS file parameter names: its text as written, once checked to hold what the parameter is for. */
export function readPem(parts: UrlParts, kind: keyof Pem, param: string): string | undefined {
  const path = textOf(parts.params, param);
  if (path === undefined) return undefined;
  const text = parts.readFile(param, path);
  if (kind === 'key') privateKeyIn(param, path, text);
  else certificatesIn(param, path, text);
  return text;
}

/** The PEM files the URL names, each under its engine's parameter: `{ ca: 'sslrootcert', … }`. */
export function pemFiles(parts: UrlParts, params: Partial<Record<keyof Pem, string>>): Pem {
  const pem: { -readonly [K in keyof Pem]?: string } = {};
  for (const kind of Object.keys(params) as (keyof Pem)[]) pem[kind] = readPem(parts, kind, params[kind] as string);
  return pem;
}

export interface TlsRules {
  /** The parameter (with a value) that turns certificate checks on, for messages: `sslmode=verify-full`. */
  readonly verifyingMode: string;
  /** Modes without TLS; an absent mode is the engine's default, which is plain on every engine. */
  readonly plainModes: readonly string[];
  /** Modes that never check the server's certificate, so a CA would be ignored. */
  readonly uncheckedModes: readonly string[];
  /** The parameters the PEM came from, for messages. */
  readonly params: { readonly ca?: string; readonly cert?: string; readonly key?: string };
}

/**
 * The descriptor's `ssl`. PEM material the engine would drop without a word is refused instead: any
 * of it over plain TCP, a CA under a mode that checks nothing (what the MySQL client only warns
 * about), and a client certificate without its key or the other way round.
 */
export function sslWith(mode: string | undefined, pem: Pem, rules: TlsRules): Ssl | undefined {
  const given = (Object.keys(pem) as (keyof Pem)[]).filter((kind) => pem[kind] !== undefined);
  const named = (kind: keyof Pem): string => rules.params[kind] ?? kind;
  if (given.length > 0 && (mode === undefined || rules.plainModes.includes(mode))) {
    throw urlError(`${named(given[0] as keyof Pem)} is used only over TLS: set ${rules.verifyingMode}`);
  }
  if (pem.ca !== undefined && mode !== undefined && rules.uncheckedModes.includes(mode)) {
    throw urlError(`${named('ca')} would be ignored: mode ${mode} checks no certificate; set ${rules.verifyingMode}`);
  }
  if ((pem.cert === undefined) !== (pem.key === undefined)) {
    throw urlError(`${named('cert')} and ${named('key')} go together (a client certificate and its key)`);
  }
  if (mode === undefined) return undefined;
  return compact({ mode, ...pem });
}

/** A descriptor of what the URL gave, without members it left out (the engine's defaults fill them). */
export function descriptorOf(
  type: EngineType,
  parts: UrlParts,
  fields: { databaseName: string; schemaName?: string; ssl?: Ssl; metadata?: Readonly<Record<string, string | undefined>> },
): DatasourceDescriptor {
  const metadata = compact(fields.metadata ?? {});
  return compact({
    type,
    host: parts.host,
    port: parts.port,
    databaseName: fields.databaseName,
    schemaName: fields.schemaName,
    userName: parts.userName,
    password: parts.password,
    ssl: fields.ssl,
    metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
  });
}

function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}
