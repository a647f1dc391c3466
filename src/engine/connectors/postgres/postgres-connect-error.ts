import type { ConnectFailureReason, DatasourceConnectError } from '../../errors/datasource-errors.js';
import { safeCode, SOCKET_FAILURES, stringField, TIMEOUT_CODES, tlsSigns } from '../shared/connect-failure.js';
import { commonDetail, connectError, SERVER_WITHOUT_SSL } from '../shared/connect-failure-message.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal } from '../shared/plaintext-password.js';

const AUTH_SQLSTATES = new Set(['28P01', '28000']);
/** node-pg's messages: its connectionTimeoutMillis, and pg-pool's wording of the same. */
const TIMEOUT_MESSAGES = ['timeout expired', 'Connection terminated due to connection timeout'];
/** node-pg's words for a server that answered `N` to the SSLRequest, or a failed TLS start. */
const NO_SSL_ON_SERVER = 'does not support SSL';
const TLS = tlsSigns([], [NO_SSL_ON_SERVER, 'establishing an SSL connection']);

/** Classifies any failure to open a PostgreSQL connection. */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  const code = stringField(error, 'code');
  const message = stringField(error, 'message');
  if (findPlaintextRefusal(error) !== undefined) return 'plaintext_password_refused';
  if (AUTH_SQLSTATES.has(code)) return 'auth_failed';
  if (code === '3D000') return 'database_not_found';
  if (code in SOCKET_FAILURES) return 'unreachable';
  if (TIMEOUT_CODES.has(code) || TIMEOUT_MESSAGES.some((m) => message.includes(m))) return 'timeout';
  if (TLS.shownBy(code, message)) return 'tls';
  return 'unknown';
}

/**
 * A session setting the value encoders rely on did not take (a proxy or an unusual server): its
 * values could not be read exactly, so the connection is not used.
 */
export class SessionSetupError extends Error {
  override readonly name = 'SessionSetupError';
}

/** The PostgreSQL-specific explanations; every other one is the common one (codes shown: SQLSTATEs, node codes). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const code = stringField(error, 'code');
  if (reason === 'tls' && code !== 'FETCHER_SSL_MODE' && stringField(error, 'message').includes(NO_SSL_ON_SERVER))
    return SERVER_WITHOUT_SSL;
  if (reason === 'unknown' && error instanceof SessionSetupError) return error.message;
  return commonDetail(reason, error, ds, timeoutMs, safeCode(code));
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  return connectError('PostgreSQL', ds, reason, detail(reason, error, ds, timeoutMs));
}
