import type { ConnectFailureReason, DatasourceConnectError } from '../../errors/datasource-errors.js';
import { SAFE_CODE, SOCKET_FAILURES, TIMEOUT_CODES as COMMON_TIMEOUT_CODES, tlsSigns } from '../shared/connect-failure.js';
import { commonDetail, connectError, endpointOf, UNSUPPORTED_SSL_MODE } from '../shared/connect-failure-message.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal } from '../shared/plaintext-password.js';
import type { SqlServerSslMode } from './sqlserver-ssl.js';

/**
 * The SSL mode asks for encryption but a login completed without TLS. tedious (from 20) refuses
 * such a server itself before the login is sent (EENCRYPT); this is the check after it.
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

/** 18456 login failed, 18452 untrusted domain login, and the refusals that say why (AUTH_REFUSALS). */
const AUTH_NUMBERS = new Set([18456, 18452, 18470, 18486, 18487, 18488]);
/** What the server's error number says about a refused login, most telling first. */
const AUTH_REFUSALS: readonly (readonly [number, string])[] = [
  [18487, 'authentication failed: the password of the login has expired'],
  [18488, 'authentication failed: the password of the login has expired'], // must change it
  [18470, 'authentication failed: the login is disabled'],
  [18486, 'authentication failed: the login is locked out'],
];
/** 4060 cannot open database (absent, or the login has no user in it: the server does not say which). */
const DATABASE_NUMBERS = new Set([4060]);
/** tedious' ETIMEOUT besides node's. */
const TIMEOUT_CODES = new Set([...COMMON_TIMEOUT_CODES, 'ETIMEOUT']);
/** tedious' EENCRYPT (server requires encryption), our own unencrypted-login check, node's EPROTO. */
const TLS = tlsSigns(['EENCRYPT', 'FETCHER_TLS_NOT_NEGOTIATED', 'EPROTO$']);

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
  if (codes.some((c) => TLS.code.test(c)) || messages.some(TLS.mentionedIn)) return 'tls';
  // Under strict encryption the TLS handshake is the first thing on the wire: a server without
  // TDS 8.0 just drops the connection.
  if (context.sslMode === 'strict' && codes.includes('ECONNRESET')) return 'tls';
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return 'timeout';
  if (codes.some((c) => c in SOCKET_FAILURES) || codes.includes('ESOCKET')) return 'unreachable';
  return 'unknown';
}

/** The SQL Server-specific explanations; every other one is the common one (codes shown: tedious/mssql or node codes). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number, context: ConnectContext): string {
  const { codes } = facts(error);
  const numbers = context.serverErrors ?? [];
  switch (reason) {
    case 'auth_failed':
      return AUTH_REFUSALS.find(([number]) => numbers.includes(number))?.[1] ?? commonDetail(reason, error, ds, timeoutMs, '');
    case 'database_not_found':
      return `database "${ds.databaseName}" does not exist on ${endpointOf(ds)}, or the login may not open it`;
    case 'unreachable': {
      const code = codes.find((c) => c in SOCKET_FAILURES);
      return code === undefined ? `cannot reach ${endpointOf(ds)} (connection lost)` : commonDetail(reason, error, ds, timeoutMs, code);
    }
    case 'tls': {
      if (codes.includes('FETCHER_SSL_MODE')) return UNSUPPORTED_SSL_MODE;
      // tedious says EENCRYPT both ways: the server wants encryption the mode does not ask for, or
      // (from tedious 20, before the login is sent) the mode asks for encryption the server refused.
      if (codes.includes('FETCHER_TLS_NOT_NEGOTIATED') || (codes.includes('EENCRYPT') && context.sslMode === 'true'))
        return 'the server did not encrypt the connection although the SSL mode requires it';
      if (codes.includes('EENCRYPT')) return 'the server requires encryption: use SSL mode "true" or "strict"';
      const tlsCode = codes.find((c) => TLS.code.test(c));
      if (tlsCode === undefined && context.sslMode === 'strict')
        return 'TLS negotiation failed: the server closed the connection (strict encryption needs SQL Server 2022 or later)';
      return commonDetail(reason, error, ds, timeoutMs, tlsCode ?? '');
    }
    case 'unknown':
      if (numbers.length > 0) return `connection failed (server error ${numbers[numbers.length - 1]})`;
      return commonDetail(reason, error, ds, timeoutMs, codes.find((c) => SAFE_CODE.test(c)) ?? '');
    default:
      return commonDetail(reason, error, ds, timeoutMs, '');
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
  return connectError('SQL Server', ds, reason, detail(reason, error, ds, timeoutMs, context));
}
