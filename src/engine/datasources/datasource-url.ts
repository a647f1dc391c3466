import { readFileSync } from 'node:fs';
import { domainToASCII } from 'node:url';
import { InvalidDatasourceError } from '../errors/engine-errors.js';
import type { DatasourceDescriptor } from './datasource-descriptor.js';
import { ENGINE_URLS } from './datasource-url-engines.js';
import { type EngineUrl, type ParamTable, shown, urlError, type UrlParts } from './datasource-url-parts.js';

/*
 * A datasource given as a connection URL (`postgres://user:password@host/db?sslmode=verify-full`)
 * instead of a descriptor object. Each engine's URL is read the way its own tools read it
 * (datasource-url-engines.ts); what every URL shares is taken apart here.
 */

export interface ParsedDatasourceUrl {
  readonly descriptor: DatasourceDescriptor;
  /** `mongodb+srv://`: the host is an SRV name, for resolveMongoSrv (mongodb-srv.ts) before connecting. */
  readonly srv: boolean;
}

export interface DatasourceUrlOptions {
  /** Reads the file a TLS parameter names (relative to the process's cwd); default `fs.readFileSync(path, 'utf8')`. */
  readonly readFile?: (path: string) => string;
}

const SCHEME = /^\s*([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/** Schemes whose authority a backslash ends too (WHATWG "special" schemes). */
const SPECIAL_SCHEMES = new Set(['ftp', 'file', 'http', 'https', 'ws', 'wss']);
const HOST_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?$/;
const INVALID_HOST = 'the host must be a host name or an IP address ([…] for IPv6)';
/** A parameter name a message may show: one that cannot be a piece of a mis-encoded password. */
const SHOWABLE_NAME = /^[A-Za-z][\w .-]{0,39}$/;

/**
 * The descriptor a datasource URL stands for, or InvalidDatasourceError (`fields.url`) saying what
 * is wrong with it. A message never shows the password, nor any part of the URL that could hold one.
 */
export function parseDatasourceUrl(url: string, options: DatasourceUrlOptions = {}): ParsedDatasourceUrl {
  const text = typeof url === 'string' ? url.trim() : '';
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  const engine = scheme === undefined ? undefined : ENGINE_URLS.get(scheme);
  if (scheme === undefined || engine === undefined) {
    const accepted = [...ENGINE_URLS.keys()].map((name) => `${name}://`).join(', ');
    throw urlError(`${scheme === undefined ? 'the URL has no scheme' : `scheme ${shown(scheme)} is not accepted`}; use ${accepted}`);
  }
  refuseHostLists(text, engine);
  if (text.includes('#')) throw urlError('a # ends the URL there: percent-encode it as %23 (in a password, say)');
  if (!URL.canParse(text)) throw urlError('the URL does not parse: percent-encode @ : / ? # [ ] % in the user name and password');
  const parsed = new URL(text);
  // No driver has such a name: it is a password whose `?` was not percent-encoded, so nothing of it is shown.
  if ([...parsed.searchParams.keys()].some((name) => name.includes('@'))) {
    throw urlError('a parameter name holds @: percent-encode ? and & in the user name and password');
  }
  const password = decoded(parsed.password, 'the password');
  const srv = scheme === 'mongodb+srv';
  try {
    return { descriptor: engine.build(partsOf(parsed, engine, srv, options, password)), srv };
  } catch (error) {
    throw withheldIfShowing(error, [password, parsed.password]);
  }
}

/**
 * The URL with its password replaced by `***`, for messages; unchanged when it has none. A URL
 * that does not parse is redacted too, as far as it looks like one: its password may be why it
 * does not (an unencoded `/` or `#`), so everything up to its last `@` counts as user info.
 */
export function redactUrl(url: string): string {
  const scheme = SCHEME.exec(url);
  if (scheme === null) return url;
  const start = scheme[0].length;
  const rest = url.slice(start);
  const parses = URL.canParse(url);
  const authorityEnd = parses ? rest.search(SPECIAL_SCHEMES.has((scheme[1] as string).toLowerCase()) ? /[/?#\\]/ : /[/?#]/) : -1;
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  const colon = authority.slice(0, Math.max(at, 0)).indexOf(':');
  if (colon < 0 || colon === at - 1) return url;
  return `${url.slice(0, start + colon + 1)}***${url.slice(start + at)}`;
}

/**
 * Several hosts, and a backslash, are refused before the URL is parsed: WHATWG URL would read
 * `h1:5432,h2:5432` and `host\instance` as a bad port or a bad host and say nothing useful.
 */
function refuseHostLists(text: string, engine: EngineUrl): void {
  const authority = text.slice(text.indexOf('://') + 3).split(/[/?#]/, 1)[0] ?? '';
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  if (/,/.test(hosts)) throw urlError(engine.oneHost);
  if (/\\/.test(hosts)) throw urlError(engine.backslashHost ?? INVALID_HOST);
}

function partsOf(parsed: URL, engine: EngineUrl, srv: boolean, options: DatasourceUrlOptions, password: string): UrlParts {
  const port = parsed.port === '' ? undefined : Number(parsed.port);
  if (port === 0) throw urlError('the port must be from 1 to 65535');
  const path = parsed.pathname.replace(/^\//, '');
  // A second segment is refused without showing it: it is often a password's unencoded `/`.
  if (path.includes('/')) throw urlError('the path must be one name (/<database>), with / inside it percent-encoded');
  const userName = decoded(parsed.username, 'the user name');
  return {
    srv,
    host: hostOf(parsed.hostname, engine),
    port,
    userName: userName === '' ? undefined : userName,
    password: password === '' ? undefined : password,
    path: decoded(path, 'the path'),
    params: paramsOf(parsed.searchParams, engine.label, engine.params),
    readFile: fileReader(options.readFile ?? ((file) => readFileSync(file, 'utf8'))),
  };
}

/** The host as a driver dials it: IPv6 without its brackets, a percent-encoded or international name as ASCII. */
function hostOf(hostname: string, engine: EngineUrl): string {
  if (hostname.startsWith('[')) return hostname.slice(1, -1);
  const host = decoded(hostname, 'the host');
  if (host === '') throw urlError('the URL has no host');
  if (host.includes('\\')) throw urlError(engine.backslashHost ?? INVALID_HOST);
  if (host.includes('/')) throw urlError('a Unix-domain socket is not supported: give a host name or an IP address');
  const ascii = /^[\x21-\x7e]*$/.test(host) ? host : domainToASCII(host);
  if (!HOST_NAME.test(ascii)) throw urlError(INVALID_HOST);
  return ascii;
}

function decoded(value: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw urlError(`${what} is not valid percent-encoding`);
  }
}

/** The query parameters under the engine's names; unknown, refused and repeated ones are refused. */
function paramsOf(search: URLSearchParams, label: string, table: ParamTable): Map<string, string> {
  const nameOf = new Map<string, string>();
  for (const [name, others] of Object.entries(table.names)) {
    for (const spelling of [name, ...others]) nameOf.set(table.fold(spelling), name);
  }
  const refusals = new Map(Object.entries(table.refused ?? {}).map(([name, why]) => [table.fold(name), `${name}: ${why}`]));
  const params = new Map<string, string>();
  for (const [spelling, value] of search) {
    const refusal = refusals.get(table.fold(spelling));
    if (refusal !== undefined) throw urlError(refusal);
    const name = nameOf.get(table.fold(spelling));
    if (name === undefined) {
      const unknown = SHOWABLE_NAME.test(spelling) ? `unknown parameter ${shown(spelling)}` : 'a parameter with an unexpected name';
      throw urlError(`${unknown}; ${label} URLs take ${acceptedNames(table)}`);
    }
    if (params.has(name)) throw urlError(`parameter ${name} is given more than once`);
    params.set(name, value);
  }
  return params;
}

function acceptedNames(table: ParamTable): string {
  const names = Object.entries(table.names).map(([name, others]) => [name, ...others].join('/'));
  return names.join(', ') + (table.note === undefined ? '' : ` (${table.note})`);
}

function fileReader(readFile: (path: string) => string): UrlParts['readFile'] {
  return (param, path) => {
    try {
      return readFile(path);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw urlError(`${param}: cannot read ${shown(path)} (${typeof code === 'string' ? code : 'unreadable'})`);
    }
  };
}

/** Last line of defence: a refusal that would show the password (echoing a value it hid in) says less. */
function withheldIfShowing(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof InvalidDatasourceError)) return error;
  const said = `${error.message} ${JSON.stringify(error.fields ?? {})}`;
  if (!secrets.some((secret) => secret.length >= 4 && said.includes(secret))) return error;
  return urlError('the URL is not valid (the details are withheld: they would show the password)');
}
