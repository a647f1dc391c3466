import { type ConnectFailureReason, DatasourceConnectError } from '../../datasource.error.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal, plaintextRefusalMessage } from '../shared/plaintext-password.js';

/** Our own connect deadline (it also covers the session setup that follows the handshake). */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'FETCHER_CONNECT_TIMEOUT';
}

const AUTH_SQLSTATES = new Set(['28P01', '28000']);
const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};
const TIMEOUT_CODES = new Set(['FETCHER_CONNECT_TIMEOUT', 'ETIMEDOUT']);
/** node-pg's messages: its connectionTimeoutMillis, and pg-pool's wording of the same. */
const TIMEOUT_MESSAGES = ['timeout expired', 'Connection terminated due to connection timeout'];
/** OpenSSL verification codes that node reports without an ERR_ prefix. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|FETCHER_SSL_MODE)/;
const TLS_MESSAGES = ['does not support SSL', 'establishing an SSL connection', 'certificate', 'SSL routines', 'TLS'];

function field(error: unknown, name: string): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** Classifies any failure to open a PostgreSQL connection. */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  const code = field(error, 'code') ?? '';
  const message = field(error, 'message') ?? '';
  if (findPlaintextRefusal(error) !== undefined) return 'plaintext_password_refused';
  if (AUTH_SQLSTATES.has(code)) return 'auth_failed';
  if (code === '3D000') return 'database_not_found';
  if (code in UNREACHABLE_CODES) return 'unreachable';
  if (TIMEOUT_CODES.has(code) || TIMEOUT_MESSAGES.some((m) => message.includes(m))) return 'timeout';
  if (TLS_CODE.test(code) || TLS_MESSAGES.some((m) => message.includes(m))) return 'tls';
  return 'unknown';
}

/**
 * A session setting the value encoders rely on did not take (a proxy or an unusual server): its
 * values could not be read exactly, so the connection is not used.
 */
export class SessionSetupError extends Error {
  override readonly name = 'SessionSetupError';
}

/** A short, secret-free explanation; server messages are never copied (they name the role). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const code = field(error, 'code') ?? '';
  const where = `${ds.host}:${ds.port}`;
  switch (reason) {
    case 'auth_failed':
      return 'authentication failed: the server rejected the credentials or does not allow this login';
    case 'database_not_found':
      return `database "${ds.databaseName}" does not exist on ${where}`;
    case 'unreachable':
      return `cannot reach ${where} (${UNREACHABLE_CODES[code] ?? code})`;
    case 'timeout':
      return `no answer from ${where} within ${timeoutMs} ms`;
    case 'plaintext_password_refused':
      return plaintextRefusalMessage(error);
    case 'tls': {
      if (code === 'FETCHER_SSL_MODE') return 'unsupported SSL mode';
      const message = field(error, 'message') ?? '';
      if (message.includes('does not support SSL')) return 'TLS required by the SSL mode, but the server does not support SSL';
      return `TLS negotiation failed${/^[A-Z0-9_]{3,60}$/.test(code) ? ` (${code})` : ''}`;
    }
    default:
      if (error instanceof SessionSetupError) return error.message;
      // Only codes are shown: an SQLSTATE or a node error code, never free text.
      return /^[A-Z0-9_]{3,60}$/.test(code) ? `connection failed (${code})` : 'connection failed';
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  const message = `Cannot connect to PostgreSQL datasource "${ds.configName}": ${detail(reason, error, ds, timeoutMs)}`;
  return new DatasourceConnectError(ds.configName, reason, message);
}
