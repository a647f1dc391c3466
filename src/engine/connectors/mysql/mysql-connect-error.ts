import type { ConnectFailureReason, DatasourceConnectError } from '../../errors/datasource-errors.js';
import { numberField, safeCode, SOCKET_FAILURES, stringField, TIMEOUT_CODES, tlsSigns } from '../shared/connect-failure.js';
import { commonDetail, connectError, SERVER_WITHOUT_SSL } from '../shared/connect-failure-message.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal } from '../shared/plaintext-password.js';

/**
 * Refusals of this login, all reported as `auth_failed`: bad credentials, or a login the server
 * does not allow (the account, its host, its rights, its password state or its auth method).
 * Matched by errno first: mysql2 names errors after MySQL's table, so MariaDB's own numbers
 * (4150, 4151) arrive under unrelated MySQL names.
 */
const AUTH_ERRNOS: ReadonlyMap<number, string> = new Map([
  [1044, 'ER_DBACCESS_DENIED_ERROR'], // no right to the database
  [1045, 'ER_ACCESS_DENIED_ERROR'], // wrong password or unknown user
  // Same refusal without the "(using password: …)" part: MariaDB sends it for accounts whose
  // plugin takes no password (unix_socket…), and has been seen sending it for unknown users.
  [1698, 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR'],
  [1130, 'ER_HOST_NOT_PRIVILEGED'], // host not allowed
  // "you need the … privilege": the account lacks a right the session needs.
  [1227, 'ER_SPECIFIC_ACCESS_DENIED_ERROR'],
  [1873, 'ER_ACCESS_DENIED_CHANGE_USER_ERROR'],
  [1251, 'ER_NOT_SUPPORTED_AUTH_MODE'], // the account's auth method is one this client lacks
  [1275, 'ER_SERVER_IS_IN_SECURE_AUTH_MODE'], // pre-4.1 password hash refused
  [1524, 'ER_PLUGIN_IS_NOT_LOADED'], // the account's auth plugin is not loaded on the server
  [1862, 'ER_MUST_CHANGE_PASSWORD_LOGIN'], // password expired, refused at login
  // Password expired, login let into sandbox mode: the session setup statement is refused.
  [1820, 'ER_MUST_CHANGE_PASSWORD'],
  [3118, 'ER_ACCOUNT_HAS_BEEN_LOCKED'], // MySQL
  [3955, 'ER_USER_ACCESS_DENIED_FOR_USER_ACCOUNT_BLOCKED_BY_PASSWORD_LOCK'], // MySQL, failed logins
  [4150, 'ER_USER_IS_BLOCKED'], // MariaDB, max_password_errors
  [4151, 'ER_ACCOUNT_HAS_BEEN_LOCKED'], // MariaDB
]);
/** By code, for errors without such an errno; AUTH_SWITCH_PLUGIN_ERROR is mysql2's own (an auth plugin it lacks, or that failed). */
const AUTH_CODES = new Set([...AUTH_ERRNOS.values(), 'AUTH_SWITCH_PLUGIN_ERROR']);
/** The login's authentication method cannot be used here, rather than credentials being wrong. */
const AUTH_METHOD_CODES = new Set(['ER_NOT_SUPPORTED_AUTH_MODE', 'ER_PLUGIN_IS_NOT_LOADED', 'AUTH_SWITCH_PLUGIN_ERROR']);
/** mysql2's TLS failures: the server offers no TLS, or the handshake failed. */
const TLS = tlsSigns(['HANDSHAKE_NO_SSL_SUPPORT', 'HANDSHAKE_SSL_ERROR'], ['secure connection']);

/** MySQL's require_secure_transport (3159): the fix is an SSL mode with TLS, not the credentials. */
function secureTransportRequired(error: unknown): boolean {
  return numberField(error, 'errno') === 3159 || stringField(error, 'code') === 'ER_SECURE_TRANSPORT_REQUIRED';
}

/** The server error's name as the server means it: by errno when known (see AUTH_ERRNOS). */
function authErrorName(error: unknown): string | undefined {
  const number = numberField(error, 'errno');
  if (number !== undefined && AUTH_ERRNOS.has(number)) return AUTH_ERRNOS.get(number);
  const code = stringField(error, 'code');
  return AUTH_CODES.has(code) ? code : undefined;
}

/** Classifies any failure to open a MySQL/MariaDB connection. */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  const code = stringField(error, 'code');
  if (findPlaintextRefusal(error) !== undefined) return 'plaintext_password_refused';
  if (authErrorName(error) !== undefined) return 'auth_failed';
  if (code === 'ER_BAD_DB_ERROR' || numberField(error, 'errno') === 1049) return 'database_not_found';
  if (code in SOCKET_FAILURES) return 'unreachable';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (secureTransportRequired(error)) return 'tls';
  if (TLS.shownBy(code, stringField(error, 'message'))) return 'tls';
  return 'unknown';
}

/** The MySQL-specific explanations; every other one is the common one (codes shown: ER_… names, node codes). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const code = stringField(error, 'code');
  if (reason === 'auth_failed') {
    const name = authErrorName(error) ?? '';
    if (name === 'ER_DBACCESS_DENIED_ERROR') return `access denied: the login may not use database "${ds.databaseName}"`;
    if (AUTH_METHOD_CODES.has(name)) return `authentication failed: the login's authentication method cannot be used (${name})`;
  }
  if (reason === 'tls' && code !== 'FETCHER_SSL_MODE') {
    if (code === 'HANDSHAKE_NO_SSL_SUPPORT') return SERVER_WITHOUT_SSL;
    if (secureTransportRequired(error)) return 'the server accepts only TLS connections: use an SSL mode with TLS';
  }
  return commonDetail(reason, error, ds, timeoutMs, safeCode(code));
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  return connectError('MySQL', ds, reason, detail(reason, error, ds, timeoutMs));
}
