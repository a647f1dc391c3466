import { type ConnectFailureReason, DatasourceConnectError } from '../../datasource.error.js';
import type { ResolvedDatasource } from '../engine-connector.js';
import { findPlaintextRefusal, plaintextRefusalMessage } from '../plaintext-password.js';

/** Our own connect deadline (it also covers the session setup that follows the handshake). */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'FETCHER_CONNECT_TIMEOUT';
}

/**
 * Server refusals of the login: wrong password or unknown user (1045), no right to the database
 * (1044), host not allowed (1130), password expired (1862), account locked (3118 MySQL,
 * 4151 MariaDB), authentication plugin not supported (1251).
 */
const AUTH_CODES = new Set([
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_HOST_NOT_PRIVILEGED',
  'ER_MUST_CHANGE_PASSWORD_LOGIN',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  'ER_NOT_SUPPORTED_AUTH_MODE',
]);
const AUTH_ERRNOS = new Set([1044, 1045, 1130, 1251, 1862, 3118, 4151]);
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

/** Classifies any failure to open a MySQL/MariaDB connection. */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  const code = field(error, 'code') ?? '';
  const number = errno(error);
  const message = field(error, 'message') ?? '';
  if (findPlaintextRefusal(error) !== undefined) return 'plaintext_password_refused';
  if (AUTH_CODES.has(code) || (number !== undefined && AUTH_ERRNOS.has(number))) return 'auth_failed';
  if (code === 'ER_BAD_DB_ERROR' || number === 1049) return 'database_not_found';
  if (code in UNREACHABLE_CODES) return 'unreachable';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (TLS_CODE.test(code) || TLS_MESSAGES.some((m) => message.includes(m))) return 'tls';
  return 'unknown';
}

/** A short, secret-free explanation; server messages are never copied (they name the user). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const code = field(error, 'code') ?? '';
  const where = `${ds.host}:${ds.port}`;
  const safeCode = /^[A-Z0-9_]{3,60}$/.test(code) ? code : '';
  switch (reason) {
    case 'auth_failed':
      return code === 'ER_DBACCESS_DENIED_ERROR'
        ? `access denied: the login may not use database "${ds.databaseName}"`
        : 'authentication failed: the server rejected the credentials or does not allow this login';
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
