import type { ConnectFailureReason, DatasourceConnectError } from '../../errors/datasource-errors.js';
import { SOCKET_FAILURES, stringField as str, TIMEOUT_CODES, tlsSigns } from '../shared/connect-failure.js';
import { commonDetail, connectError, endpointOf } from '../shared/connect-failure-message.js';
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
/** The driver's words for a TLS server it could not trust, or a plain one it spoke TLS to. */
const TLS = tlsSigns([], ['self-signed', 'self signed', 'wrong version number']);

type Fields = Record<string, unknown>;

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
const isTls = (e: Fields): boolean => TLS.shownBy(str(e, 'code'), str(e, 'message'));
const isUnreachable = (e: Fields): boolean => str(e, 'code') in SOCKET_FAILURES;
const isTimeout = (e: Fields): boolean => TIMEOUT_CODES.has(str(e, 'code')) || errorName(e) === 'MongoNetworkTimeoutError';
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

/** Server code names are CamelCase (`AuthenticationFailed`), unlike node's codes. */
const SAFE_CODE = /^[A-Za-z0-9_]{3,60}$/;

/** The MongoDB-specific explanations; server and driver messages are never copied. */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const chain = errorChain(error);
  const first = chain[0] ?? {};
  const codes = chain.map((e) => str(e, 'code'));
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
    case 'unreachable':
      if (str(first, 'code') === 'FETCHER_MONGO_HOST') return `invalid host or port (${str(first, 'message')})`;
      return commonDetail(reason, error, ds, timeoutMs, codes.find((c) => c in SOCKET_FAILURES) ?? '');
    case 'tls':
      // Our SSL mode error says which mode was given.
      if (str(first, 'code') === 'FETCHER_SSL_MODE') return str(first, 'message');
      return commonDetail(reason, error, ds, timeoutMs, codes.find((c) => TLS.code.test(c)) ?? '');
    case 'unknown': {
      if (chain.some(isNetworkError)) return `the server at ${endpointOf(ds)} closed the connection (does it require TLS?)`;
      const code = chain.map((e) => str(e, 'codeName') || str(e, 'code')).find((c) => SAFE_CODE.test(c));
      return commonDetail(reason, error, ds, timeoutMs, code ?? '');
    }
    default:
      return commonDetail(reason, error, ds, timeoutMs, '');
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  return connectError('MongoDB', ds, reason, detail(reason, error, ds, timeoutMs));
}
