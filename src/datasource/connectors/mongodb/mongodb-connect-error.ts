import { type ConnectFailureReason, DatasourceConnectError } from '../../datasource.error.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { authSourceOf } from './mongodb-client.js';

/**
 * Server codes of a refused login: AuthenticationFailed (18, also for an unknown user: SCRAM
 * does not tell them apart) and UserNotFound (11, x509 / some mechanisms).
 */
const AUTH_CODES = new Set([18, 11]);
const AUTH_CODE_NAMES = new Set(['AuthenticationFailed', 'UserNotFound']);
/** Unauthorized (13): logged in (or not at all) but without any right on the database. */
const isUnauthorized = (e: Record<string, unknown>): boolean => e.code === 13 || e.codeName === 'Unauthorized';
const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};
/** OpenSSL / node TLS codes, and our own SSL mode error. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|FETCHER_SSL_MODE)/;
const TLS_MESSAGES = ['certificate', 'SSL routines', 'TLS', 'self-signed', 'self signed', 'wrong version number'];

type Fields = Record<string, unknown>;

const str = (e: Fields, name: string): string => (typeof e[name] === 'string' ? (e[name] as string) : '');
const errorName = (e: Fields): string => {
  try {
    return typeof e.name === 'string' ? e.name : '';
  } catch {
    return '';
  }
};

/**
 * The error and every error behind it: `cause` chains, and for a MongoServerSelectionError the
 * last error of each server the driver tried (`reason.servers`, a Map of server descriptions).
 */
function errorChain(error: unknown): Fields[] {
  const out: Fields[] = [];
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && out.length < 50) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    const fields = e as Fields;
    out.push(fields);
    queue.push(fields.cause);
    const servers = (fields.reason as { servers?: unknown } | undefined)?.servers;
    if (servers instanceof Map) for (const description of servers.values()) queue.push((description as { error?: unknown } | null)?.error);
  }
  return out;
}

const isAuthFailure = (e: Fields): boolean =>
  (typeof e.code === 'number' && AUTH_CODES.has(e.code)) || AUTH_CODE_NAMES.has(str(e, 'codeName'));
const isTls = (e: Fields): boolean => TLS_CODE.test(str(e, 'code')) || TLS_MESSAGES.some((m) => str(e, 'message').includes(m));
const isUnreachable = (e: Fields): boolean => str(e, 'code') in UNREACHABLE_CODES;
const isTimeout = (e: Fields): boolean =>
  ['FETCHER_CONNECT_TIMEOUT', 'ETIMEDOUT'].includes(str(e, 'code')) || errorName(e) === 'MongoNetworkTimeoutError';
const isSelectionError = (e: Fields): boolean => errorName(e) === 'MongoServerSelectionError';
const isNetworkError = (e: Fields): boolean => errorName(e) === 'MongoNetworkError';

/**
 * Classifies any failure to open a MongoDB connection:
 * - a refused login (code 18/11), or a login without any right on the database (13) → auth_failed;
 * - TLS handshake or certificate errors, and an invalid SSL mode → tls;
 * - connection refused, no route, unknown host → unreachable (also when server selection times
 *   out because of them: the selection error carries each server's last error);
 * - a server selection that timed out without any server error (nothing answered, or no
 *   primary), a socket timeout or our own deadline → timeout;
 * - a bad host or port in the record → unreachable; a bad database name → database_not_found.
 * MongoDB creates databases on first write, so connecting to a database that does not exist
 * succeeds: discovery then finds no collections and each requested one is table_not_found.
 */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  const chain = errorChain(error);
  const code = chain.length > 0 ? str(chain[0], 'code') : '';
  if (code === 'FETCHER_MONGO_HOST') return 'unreachable';
  if (code === 'FETCHER_MONGO_DATABASE') return 'database_not_found';
  if (chain.some(isAuthFailure) || chain.some(isUnauthorized)) return 'auth_failed';
  if (chain.some(isTls)) return 'tls';
  if (chain.some(isUnreachable)) return 'unreachable';
  if (chain.some(isTimeout)) return 'timeout';
  // Server selection gave up and no server reported an error: nothing answered in time, or no
  // server was suitable (no primary). With errors (closed sockets, an unsupported server), it is
  // not a timeout and nothing more specific is known.
  if (chain.length > 0 && chain.every(isSelectionError)) return 'timeout';
  return 'unknown';
}

const SAFE_CODE = /^[A-Za-z0-9_]{3,60}$/;

/** A short, secret-free explanation; server and driver messages are never copied. */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const chain = errorChain(error);
  const first = chain[0] ?? {};
  const where = `${ds.host}:${ds.port}`;
  switch (reason) {
    case 'auth_failed':
      if (chain.some(isUnauthorized) && !chain.some(isAuthFailure)) {
        return ds.userName === ''
          ? 'the server requires authentication and the connection has no user name'
          : `not authorized: the login may not read database "${ds.databaseName}"`;
      }
      return `authentication failed: the server rejected the credentials (authSource "${authSourceOf(ds)}")`;
    case 'database_not_found':
      return 'invalid database name';
    case 'unreachable': {
      if (str(first, 'code') === 'FETCHER_MONGO_HOST') return `invalid host or port (${str(first, 'message')})`;
      const code = chain.map((e) => str(e, 'code')).find((c) => c in UNREACHABLE_CODES) ?? '';
      return `cannot reach ${where} (${UNREACHABLE_CODES[code]})`;
    }
    case 'timeout':
      return `no answer from ${where} within ${timeoutMs} ms`;
    case 'tls': {
      if (str(first, 'code') === 'FETCHER_SSL_MODE') return str(first, 'message');
      const code = chain.map((e) => str(e, 'code')).find((c) => TLS_CODE.test(c)) ?? '';
      return `TLS negotiation failed${code === '' ? '' : ` (${code})`}`;
    }
    default: {
      if (chain.some(isNetworkError)) return `the server at ${where} closed the connection (does it require TLS?)`;
      const code = chain.map((e) => str(e, 'codeName') || str(e, 'code')).find((c) => SAFE_CODE.test(c));
      return code === undefined ? 'connection failed' : `connection failed (${code})`;
    }
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  const message = `Cannot connect to MongoDB datasource "${ds.configName}": ${detail(reason, error, ds, timeoutMs)}`;
  return new DatasourceConnectError(ds.configName, reason, message);
}
