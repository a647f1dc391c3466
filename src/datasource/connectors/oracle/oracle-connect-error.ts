import { type ConnectFailureReason, DatasourceConnectError } from '../../datasource.error.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';

/** Our own connect deadline (it also covers TLS, login and the session setup). */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'FETCHER_CONNECT_TIMEOUT';
}

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
/** The listener does not know the service (12514) or SID (12505); node-oracledb thin reports them as NJS-518/519, python-oracledb as DPY-6001/6003. */
const NOT_FOUND_ORA = new Set([12505, 12514]);
const NOT_FOUND_CODES = new Set(['NJS-518', 'NJS-519', 'DPY-6001', 'DPY-6003']);
/** Oracle Net timeouts: connect (12170), transport (12535), server-side inbound (03136). */
const TIMEOUT_ORA = new Set([3136, 12170, 12535]);
const TIMEOUT_CODES = new Set(['FETCHER_CONNECT_TIMEOUT', 'NJS-510', 'ETIMEDOUT']);
/** No listener (12541), host unreachable (12543), unknown host (12545). */
const UNREACHABLE_ORA = new Set([12541, 12543, 12545]);
/**
 * node-oracledb thin: connection not established (NJS-503, the socket error in its message),
 * refused by the listener (NJS-511), contact lost during the handshake (NJS-500/501), proxy
 * failure (NJS-504), host name not resolvable (NJS-530); python-oracledb's DPY-6005/6000.
 */
const UNREACHABLE_CODES = new Set(['NJS-500', 'NJS-501', 'NJS-503', 'NJS-504', 'NJS-511', 'NJS-530', 'DPY-6000', 'DPY-6005']);
const SOCKET_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
};
/** Certificate validation (29024), fatal SSL error (28860), handshake failed (28862). */
const TLS_ORA = new Set([28860, 28862, 29024]);
/** node-oracledb TLS failures (init 505, handshake 506, DN 507, host name 508); OpenSSL / node codes. */
const TLS_CODE = /^(NJS-50[5-8]|FETCHER_SSL_MODE|ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH)/;
const TLS_MESSAGES = ['TLS', 'certificate', 'SSL routines', 'wallet'];

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

const text = (error: unknown, name: string): string => {
  const value = field(error, name);
  return typeof value === 'string' ? value : '';
};

/** The ORA number of a server error: `errorNum`, or the `ORA-nnnnn` code. */
function oraNumber(error: unknown): number | undefined {
  const errorNum = field(error, 'errorNum');
  if (typeof errorNum === 'number' && errorNum > 0) return errorNum;
  const m = /^ORA-(\d{5})$/.exec(text(error, 'code'));
  return m === null ? undefined : Number(m[1]);
}

/** `connect ECONNREFUSED 10.0.0.1:1521` inside a driver message → ECONNREFUSED. */
function socketError(error: unknown): string | undefined {
  const code = text(error, 'code');
  if (code in SOCKET_ERRORS || code === 'ETIMEDOUT') return code;
  return /\b(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT)\b/.exec(text(error, 'message'))?.[1];
}

/** Classifies any failure to open an Oracle connection (node-oracledb thin error shapes). */
export function classifyConnectError(error: unknown): ConnectFailureReason {
  if (error instanceof OracleConfigError) return error.reason;
  const code = text(error, 'code');
  const message = text(error, 'message');
  const ora = oraNumber(error);
  if (ora !== undefined && AUTH_ORA.has(ora)) return 'auth_failed';
  if ((ora !== undefined && NOT_FOUND_ORA.has(ora)) || NOT_FOUND_CODES.has(code)) return 'database_not_found';
  if (TIMEOUT_CODES.has(code) || (ora !== undefined && TIMEOUT_ORA.has(ora))) return 'timeout';
  if (TLS_CODE.test(code) || (ora !== undefined && TLS_ORA.has(ora))) return 'tls';
  const socket = socketError(error);
  if (socket === 'ETIMEDOUT') return 'timeout';
  if (socket !== undefined || UNREACHABLE_CODES.has(code) || (ora !== undefined && UNREACHABLE_ORA.has(ora))) {
    return /\btimed out\b/i.test(message) ? 'timeout' : 'unreachable';
  }
  if (TLS_MESSAGES.some((m) => message.includes(m))) return 'tls';
  return 'unknown';
}

/** A code safe to show: ORA-/NJS-/DPY- numbers, node error codes. */
function safeCode(error: unknown): string {
  const code = text(error, 'code');
  return /^(ORA|NJS|DPY|DPI)-\d{3,5}$/.test(code) || /^[A-Z][A-Z0-9_]{2,59}$/.test(code) ? code : '';
}

/** A short, secret-free explanation; driver messages are never copied (they carry connection ids and can name users). */
function detail(reason: ConnectFailureReason, error: unknown, ds: ResolvedDatasource, timeoutMs: number): string {
  const where = `${ds.host}:${ds.port}`;
  const code = safeCode(error);
  const suffix = code === '' ? '' : ` (${code})`;
  const service = typeof ds.metadata.serviceName === 'string' ? ds.metadata.serviceName : '';
  if (error instanceof OracleConfigError) return error.message;
  switch (reason) {
    case 'auth_failed':
      return `authentication failed: the server rejected the credentials or does not allow this login${suffix}`;
    case 'database_not_found':
      return `service "${service}" is not known to the listener at ${where}${suffix}`;
    case 'unreachable': {
      const socket = socketError(error);
      if (socket !== undefined && socket in SOCKET_ERRORS) return `cannot reach ${where} (${SOCKET_ERRORS[socket]})`;
      if (code === 'NJS-530') return `cannot reach ${where} (host name not found)`;
      if (code === 'NJS-500' || code === 'NJS-501')
        return `the server at ${where} closed the connection during the handshake (${code}); is it an Oracle listener?`;
      // NJS-511 names the listener's refusal as `Cause: ORA-nnnnn`.
      const cause = /\b(ORA-\d{5})\b/.exec(text(error, 'message'))?.[1];
      return `cannot reach ${where}${suffix}${cause === undefined || cause === code ? '' : `: listener answered ${cause}`}`;
    }
    case 'timeout':
      return `no answer from ${where} within ${timeoutMs} ms`;
    case 'tls': {
      if (text(error, 'code') === 'FETCHER_SSL_MODE') return 'unsupported SSL mode';
      const message = text(error, 'message');
      const why = /not present in certificate/.test(message)
        ? ': the certificate does not name the host'
        : /Server DN in certificate does not match/.test(message)
          ? ': the certificate DN does not match metadata.sslServerCertDN'
          : /self[- ]signed|unable to (verify|get local issuer)/i.test(message)
            ? ': the server certificate is not signed by a trusted CA'
            : '';
      return `TLS negotiation failed${suffix}${why}`;
    }
    default:
      return code === '' ? 'connection failed' : `connection failed (${code})`;
  }
}

/** The error `open()` throws: reason classified, message naming the datasource, no secrets. */
export function toConnectError(error: unknown, ds: ResolvedDatasource, timeoutMs: number): DatasourceConnectError {
  const reason = classifyConnectError(error);
  const message = `Cannot connect to Oracle datasource "${ds.configName}": ${detail(reason, error, ds, timeoutMs)}`;
  return new DatasourceConnectError(ds.configName, reason, message);
}
