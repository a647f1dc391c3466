import { type ConnectFailureReason, DatasourceConnectError } from '../../datasource.error.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal, plaintextRefusalMessage } from '../shared/plaintext-password.js';

/** Our own connect deadline (it also covers the session setup that follows the handshake). */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'FETCHER_CONNECT_TIMEOUT';
}

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
const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};
const TIMEOUT_CODES = new Set(['FETCHER_CONNECT_TIMEOUT', 'ETIMEDOUT']);
/** mysql2's TLS failures, and the OpenSSL / node codes of certificate problems. */
const TLS_CODE =
  /^(HANDSHAKE_NO_SSL_SUPPORT|HANDSHAKE_SSL_ERROR|ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|FETCHER_SSL_MODE)/;
const TLS_MESSAGES = ['certificate', 'SSL routines', 'secure connection', 'TLS'];

function field(error: unknown, name: string): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function errno(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>).errno;
  return typeof value === 'number' ? value : undefined;
}

/** MySQL's require_secure_transport (3159): the fix is an SSL mode with TLS, not the credentials. */
function secureTransportRequired(error: unknown): boolean {
  return errno(error) === 3159 || field(error, 'code') === 'ER_SECURE_TRANSPORT_REQUIRED';
}

/** The server error's name as the server means it: by errno when known (see AUTH_ERRNOS). */
function authErrorName(error: unknown): string | undefined {
  const number = errno(error);
  if (number !== undefined && AUTH_ERRNOS.has(number)) return AUTH_ERRNOS.get(number);
  const code = field(error, 'code') ?? '';
  return AUTH_CODES.has(code) ? code : undefined;
}

/** Classifies any failure to open a MySQL/MariaDB connection. */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  const code = field(error, 'code') ?? '';
  const number = errno(error);
  const message = field(error, 'message') ?? '';
  if (findPlaintextRefusal(error) !== undefined) return 'plaintext_password_refused';
  if (authErrorName(error) !== undefined) return 'auth_failed';
  if (code === 'ER_BAD_DB_ERROR' || number === 1049) return 'database_not_found';
  if (code in UNREACHABLE_CODES) return 'unreachable';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (secureTransportRequired(error)) return 'tls';
  if (TLS_CODE.test(code) || TLS_MESSAGES.some((m) => message.includes(m))) return 'tls';
  return 'unknown';
}

/** A short, secret-free explanation; server messages are never copied (they name the user). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const code = field(error, 'code') ?? '';
  const where = `${ds.host}:${ds.port}`;
  const safeCode = /^[A-Z0-9_]{3,60}$/.test(code) ? code : '';
  switch (reason) {
    case 'auth_failed': {
      const name = authErrorName(error) ?? '';
      if (name === 'ER_DBACCESS_DENIED_ERROR') return `access denied: the login may not use database "${ds.databaseName}"`;
      if (AUTH_METHOD_CODES.has(name)) return `authentication failed: the login's authentication method cannot be used (${name})`;
      return 'authentication failed: the server rejected the credentials or does not allow this login';
    }
    case 'database_not_found':
      return `database "${ds.databaseName}" does not exist on ${where}`;
    case 'unreachable':
      return `cannot reach ${where} (${UNREACHABLE_CODES[code] ?? code})`;
    case 'timeout':
      return `no answer from ${where} within ${timeoutMs} ms`;
    case 'plaintext_password_refused':
      return plaintextRefusalMessage(error);
    case 'tls':
      if (code === 'FETCHER_SSL_MODE') return 'unsupported SSL mode';
      if (code === 'HANDSHAKE_NO_SSL_SUPPORT') return 'TLS required by the SSL mode, but the server does not support SSL';
      if (secureTransportRequired(error)) return 'the server accepts only TLS connections: use an SSL mode with TLS';
      return `TLS negotiation failed${safeCode === '' ? '' : ` (${safeCode})`}`;
    default:
      // Only codes are shown (ER_… names or node error codes), never free text.
      return safeCode === '' ? 'connection failed' : `connection failed (${safeCode})`;
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  const message = `Cannot connect to MySQL datasource "${ds.configName}": ${detail(reason, error, ds, timeoutMs)}`;
  return new DatasourceConnectError(ds.configName, reason, message);
}
