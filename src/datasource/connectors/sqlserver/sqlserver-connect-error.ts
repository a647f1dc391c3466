import { type ConnectFailureReason, DatasourceConnectError } from '../../datasource.error.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal, plaintextRefusalMessage } from '../shared/plaintext-password.js';
import type { SqlServerSslMode } from './sqlserver-ssl.js';

/** Our own connect deadline (it also covers the session setup that follows the login). */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'FETCHER_CONNECT_TIMEOUT';
}

/**
 * The SSL mode asks for encryption but the server (or whoever answers for it) replied
 * "encryption not supported": tedious would carry on in clear, so the login is stopped.
 */
export class UnencryptedLoginError extends Error {
  override readonly name = 'UnencryptedLoginError';
  readonly code = 'FETCHER_TLS_NOT_NEGOTIATED';
}

/** What the connect attempt knows beyond the thrown error. */
export interface ConnectContext {
  /**
   * Error numbers the server sent during login. tedious keeps only the last message
   * (`Login failed for user …`, 18456), which hides 4060 "Cannot open database".
   */
  readonly serverErrors?: readonly number[];
  readonly sslMode?: SqlServerSslMode;
}

/** 18456 login failed, 18452 untrusted domain login, 18470 disabled, 18486 locked out, 18487/18488 password expired / must change. */
const AUTH_NUMBERS = new Set([18456, 18452, 18470, 18486, 18487, 18488]);
/** 4060 cannot open database (absent, or the login has no user in it: the server does not say which). */
const DATABASE_NUMBERS = new Set([4060]);
const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};
const TIMEOUT_CODES = new Set(['FETCHER_CONNECT_TIMEOUT', 'ETIMEOUT', 'ETIMEDOUT']);
/** tedious' EENCRYPT (server requires encryption), our own checks, OpenSSL / node TLS codes. */
const TLS_CODE =
  /^(EENCRYPT|FETCHER_SSL_MODE|FETCHER_TLS_NOT_NEGOTIATED|ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|EPROTO$)/;
const TLS_MESSAGES = ['certificate', 'SSL routines', 'TLS'];

interface Facts {
  readonly codes: string[];
  readonly messages: string[];
}

/**
 * Codes and messages of the error and of everything it wraps: mssql's `originalError` (the
 * tedious error), tedious' `cause` (the socket or TLS error) and AggregateError members (one
 * per address tried).
 */
function facts(error: unknown): Facts {
  const out: Facts = { codes: [], messages: [] };
  const visit = (e: unknown, depth: number): void => {
    if (typeof e !== 'object' || e === null || depth > 6) return;
    const record = e as Record<string, unknown>;
    if (typeof record.code === 'string') out.codes.push(record.code);
    if (typeof record.message === 'string') out.messages.push(record.message);
    visit(record.originalError, depth + 1);
    visit(record.cause, depth + 1);
    if (Array.isArray(record.errors)) for (const member of record.errors) visit(member, depth + 1);
  };
  visit(error, 0);
  return out;
}

/** Classifies any failure to open a SQL Server connection. */
export function classifyConnectError(error: unknown, context: ConnectContext = {}): ConnectFailureReason {
  const numbers = context.serverErrors ?? [];
  if (findPlaintextRefusal(error) !== undefined) return 'plaintext_password_refused';
  if (numbers.some((n) => DATABASE_NUMBERS.has(n))) return 'database_not_found';
  if (numbers.some((n) => AUTH_NUMBERS.has(n))) return 'auth_failed';
  const { codes, messages } = facts(error);
  if (codes.includes('ELOGIN')) {
    if (numbers.length > 0) return 'unknown';
    return messages.some((m) => m.includes('Cannot open database')) ? 'database_not_found' : 'auth_failed';
  }
  if (codes.some((c) => TLS_CODE.test(c)) || messages.some((m) => TLS_MESSAGES.some((t) => m.includes(t)))) return 'tls';
  // Under strict encryption the TLS handshake is the first thing on the wire: a server without
  // TDS 8.0 just drops the connection.
  if (context.sslMode === 'strict' && codes.includes('ECONNRESET')) return 'tls';
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return 'timeout';
  if (codes.some((c) => c in UNREACHABLE_CODES) || codes.includes('ESOCKET')) return 'unreachable';
  return 'unknown';
}

const SAFE_CODE = /^[A-Z0-9_]{3,60}$/;

/** A short, secret-free explanation; server messages are never copied (they name the login). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number, context: ConnectContext): string {
  const { codes } = facts(error);
  const numbers = context.serverErrors ?? [];
  const where = `${ds.host}:${ds.port}`;
  switch (reason) {
    case 'auth_failed':
      if (numbers.includes(18487) || numbers.includes(18488)) return 'authentication failed: the password of the login has expired';
      if (numbers.includes(18470)) return 'authentication failed: the login is disabled';
      if (numbers.includes(18486)) return 'authentication failed: the login is locked out';
      return 'authentication failed: the server rejected the credentials or does not allow this login';
    case 'database_not_found':
      return `database "${ds.databaseName}" does not exist on ${where}, or the login may not open it`;
    case 'unreachable': {
      const code = codes.find((c) => c in UNREACHABLE_CODES);
      return code === undefined ? `cannot reach ${where} (connection lost)` : `cannot reach ${where} (${UNREACHABLE_CODES[code]})`;
    }
    case 'timeout':
      return `no answer from ${where} within ${timeoutMs} ms`;
    case 'plaintext_password_refused':
      return plaintextRefusalMessage(error);
    case 'tls': {
      if (codes.includes('FETCHER_SSL_MODE')) return 'unsupported SSL mode';
      if (codes.includes('EENCRYPT')) return 'the server requires encryption: use SSL mode "true" or "strict"';
      if (codes.includes('FETCHER_TLS_NOT_NEGOTIATED'))
        return 'the server did not encrypt the connection although the SSL mode requires it';
      const tlsCode = codes.find((c) => TLS_CODE.test(c));
      if (tlsCode !== undefined) return `TLS negotiation failed (${tlsCode})`;
      if (context.sslMode === 'strict')
        return 'TLS negotiation failed: the server closed the connection (strict encryption needs SQL Server 2022 or later)';
      return 'TLS negotiation failed';
    }
    default: {
      if (numbers.length > 0) return `connection failed (server error ${numbers[numbers.length - 1]})`;
      // Only codes are shown (tedious/mssql codes or node error codes), never free text.
      const code = codes.find((c) => SAFE_CODE.test(c));
      return code === undefined ? 'connection failed' : `connection failed (${code})`;
    }
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(
  error: unknown,
  ds: ResolvedDatasource,
  timeoutMs: number,
  context: ConnectContext = {},
): DatasourceConnectError {
  const reason = classifyConnectError(error, context);
  const message = `Cannot connect to SQL Server datasource "${ds.configName}": ${detail(reason, error, ds, timeoutMs, context)}`;
  return new DatasourceConnectError(ds.configName, reason, message);
}
