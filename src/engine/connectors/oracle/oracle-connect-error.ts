import type { ConnectFailureReason, DatasourceConnectError } from '../../errors/datasource-errors.js';
import { numberField, SOCKET_FAILURES, stringField, TIMEOUT_CODES as COMMON_TIMEOUT_CODES, tlsSigns } from '../shared/connect-failure.js';
import { commonDetail, connectError, endpointOf, LOGIN_REFUSED, UNSUPPORTED_SSL_MODE } from '../shared/connect-failure-message.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';

/** The record cannot make a connect descriptor (no service name, a host that would break it…). */
export class OracleConfigError extends Error {
  override readonly name = 'OracleConfigError';
  readonly code = 'FETCHER_ORACLE_CONFIG';

  constructor(
    readonly reason: ConnectFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Login refusals: invalid credential (01017), null password (01005), no CREATE SESSION (01045),
 * SYS without SYSDBA (28009), account locked (28000), password expired (28001), no common
 * authentication protocol (28040).
 */
const AUTH_ORA = new Set([1005, 1017, 1045, 28000, 28001, 28009, 28040]);
/**
 * The listener does not know the service (12514) or SID (12505); node-oracledb thin reports them as
 * NJS-518/519, python-oracledb as DPY-6001/6003.
 */
const NOT_FOUND_ORA = new Set([12505, 12514]);
const NOT_FOUND_CODES = new Set(['NJS-518', 'NJS-519', 'DPY-6001', 'DPY-6003']);
/** Oracle Net timeouts: connect (12170), transport (12535), server-side inbound (03136). */
const TIMEOUT_ORA = new Set([3136, 12170, 12535]);
const TIMEOUT_CODES = new Set([...COMMON_TIMEOUT_CODES, 'NJS-510']);
/** No listener (12541), host unreachable (12543), unknown host (12545). */
const UNREACHABLE_ORA = new Set([12541, 12543, 12545]);
/**
 * node-oracledb thin: connection not established (NJS-503, the socket error in its message),
 * refused by the listener (NJS-511), contact lost during the handshake (NJS-500/501), proxy
 * failure (NJS-504), host name not resolvable (NJS-530); python-oracledb's DPY-6005/6000.
 */
const UNREACHABLE_CODES = new Set(['NJS-500', 'NJS-501', 'NJS-503', 'NJS-504', 'NJS-511', 'NJS-530', 'DPY-6000', 'DPY-6005']);
/** The common socket failures, and a connection reset before the listener answered. */
const SOCKET_ERRORS: Readonly<Record<string, string>> = { ...SOCKET_FAILURES, ECONNRESET: 'connection reset' };
/** A socket code inside a driver message: `connect ECONNREFUSED 10.0.0.1:1521`. */
const SOCKET_ERROR_IN_TEXT = new RegExp(`\\b(${[...Object.keys(SOCKET_ERRORS), 'ETIMEDOUT'].join('|')})\\b`);
/** Certificate validation (29024), fatal SSL error (28860), handshake failed (28862). */
const TLS_ORA = new Set([28860, 28862, 29024]);
/** node-oracledb TLS failures (init 505, handshake 506, DN 507, host name 508); OpenSSL / node codes. */
const TLS = tlsSigns(['NJS-50[5-8]'], ['wallet']);

/** The ORA number of a server error: `errorNum`, or the `ORA-nnnnn` code. */
function oraNumber(error: unknown): number | undefined {
  const errorNum = numberField(error, 'errorNum');
  if (errorNum !== undefined && errorNum > 0) return errorNum;
  const m = /^ORA-(\d{5})$/.exec(stringField(error, 'code'));
  return m === null ? undefined : Number(m[1]);
}

/** `connect ECONNREFUSED 10.0.0.1:1521` inside a driver message → ECONNREFUSED. */
function socketError(error: unknown): string | undefined {
  const code = stringField(error, 'code');
  if (code in SOCKET_ERRORS || code === 'ETIMEDOUT') return code;
  return SOCKET_ERROR_IN_TEXT.exec(stringField(error, 'message'))?.[1];
}

/** Classifies any failure to open an Oracle connection (node-oracledb thin error shapes). */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  if (error instanceof OracleConfigError) return error.reason;
  const code = stringField(error, 'code');
  const message = stringField(error, 'message');
  const ora = oraNumber(error);
  if (ora !== undefined && AUTH_ORA.has(ora)) return 'auth_failed';
  if ((ora !== undefined && NOT_FOUND_ORA.has(ora)) || NOT_FOUND_CODES.has(code)) return 'database_not_found';
  if (TIMEOUT_CODES.has(code) || (ora !== undefined && TIMEOUT_ORA.has(ora))) return 'timeout';
  if (TLS.code.test(code) || (ora !== undefined && TLS_ORA.has(ora))) return 'tls';
  const socket = socketError(error);
  if (socket === 'ETIMEDOUT') return 'timeout';
  if (socket !== undefined || UNREACHABLE_CODES.has(code) || (ora !== undefined && UNREACHABLE_ORA.has(ora))) {
    return /\btimed out\b/i.test(message) ? 'timeout' : 'unreachable';
  }
  if (TLS.mentionedIn(message)) return 'tls';
  return 'unknown';
}

/** A code safe to show: ORA-/NJS-/DPY- numbers, node error codes. */
function safeCode(error: unknown): string {
  const code = stringField(error, 'code');
  return /^(ORA|NJS|DPY|DPI)-\d{3,5}$/.test(code) || /^[A-Z][A-Z0-9_]{2,59}$/.test(code) ? code : '';
}

/** What the message of a failed handshake tells, said for people. */
const TLS_WHY: readonly (readonly [RegExp, string])[] = [
  [/not present in certificate/, ': the certificate does not name the host'],
  [/Server DN in certificate does not match/, ': the certificate DN does not match metadata.sslServerCertDN'],
  [/self[- ]signed|unable to (verify|get local issuer)/i, ': the server certificate is not signed by a trusted CA'],
];

/** The Oracle-specific explanations; driver messages are never copied (they carry connection ids and can name users). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  if (error instanceof OracleConfigError) return error.message;
  const where = endpointOf(ds);
  const code = safeCode(error);
  const suffix = code === '' ? '' : ` (${code})`;
  switch (reason) {
    case 'auth_failed':
      return LOGIN_REFUSED + suffix;
    case 'database_not_found': {
      const service = typeof ds.metadata.serviceName === 'string' ? ds.metadata.serviceName : '';
      return `service "${service}" is not known to the listener at ${where}${suffix}`;
    }
    case 'unreachable': {
      const socket = socketError(error);
      if (socket !== undefined && socket in SOCKET_ERRORS) return `cannot reach ${where} (${SOCKET_ERRORS[socket]})`;
      if (code === 'NJS-530') return `cannot reach ${where} (host name not found)`;
      if (code === 'NJS-500' || code === 'NJS-501')
        return `the server at ${where} closed the connection during the handshake (${code}); is it an Oracle listener?`;
      // NJS-511 names the listener's refusal as `Cause: ORA-nnnnn`.
      const cause = /\b(ORA-\d{5})\b/.exec(stringField(error, 'message'))?.[1];
      return `cannot reach ${where}${suffix}${cause === undefined || cause === code ? '' : `: listener answered ${cause}`}`;
    }
    case 'tls': {
      if (code === 'FETCHER_SSL_MODE') return UNSUPPORTED_SSL_MODE;
      const message = stringField(error, 'message');
      return `TLS negotiation failed${suffix}${TLS_WHY.find(([pattern]) => pattern.test(message))?.[1] ?? ''}`;
    }
    default:
      return commonDetail(reason, error, ds, timeoutMs, code);
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  return connectError('Oracle', ds, reason, detail(reason, error, ds, timeoutMs));
}
