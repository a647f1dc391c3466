import { type ConnectFailureReason, DatasourceConnectError } from '../../errors/datasource-errors.js';
import type { ResolvedDatasource } from './engine-connector.js';
import { plaintextRefusalMessage } from './plaintext-password.js';
import { SOCKET_FAILURES } from './connect-failure.js';

/*
 * What a connect failure is said to be: the explanations every engine gives when it knows nothing
 * more specific, and the message around them. Server and driver messages are never copied into
 * an explanation (they name users and hosts), only codes safe to show (SAFE_CODE).
 */

export const LOGIN_REFUSED = 'authentication failed: the server rejected the credentials or does not allow this login';
export const UNSUPPORTED_SSL_MODE = 'unsupported SSL mode';
export const SERVER_WITHOUT_SSL = 'TLS required by the SSL mode, but the server does not support SSL';

export const endpointOf = (ds: ResolvedDatasource): string => `${ds.host}:${ds.port}`;

const withCode = (text: string, code: string): string => (code === '' ? text : `${text} (${code})`);

/**
 * The explanation of a failure the engine has nothing more specific to say about. `code` is the
 * one to show, already checked safe by the engine ('' for none): the socket code of an
 * unreachable server, the TLS code of a failed handshake, any code of an unknown failure.
 */
export function commonDetail(
  reason: ConnectFailureReason,
  error: unknown,
  ds: ResolvedDatasource,
  timeoutMs: number,
  code: string,
): string {
  const where = endpointOf(ds);
  switch (reason) {
    case 'auth_failed':
      return LOGIN_REFUSED;
    case 'database_not_found':
      return `database "${ds.databaseName}" does not exist on ${where}`;
    case 'unreachable':
      return `cannot reach ${where} (${SOCKET_FAILURES[code] ?? code})`;
    case 'timeout':
      return `no answer from ${where} within ${timeoutMs} ms`;
    case 'plaintext_password_refused':
      return plaintextRefusalMessage(error);
    case 'tls':
      return code === 'FETCHER_SSL_MODE' ? UNSUPPORTED_SSL_MODE : withCode('TLS negotiation failed', code);
    default:
      return withCode('connection failed', code);
  }
}

/** The error `open()` throws: the reason, and a message that names the datasource and holds no secret. */
export function connectError(engine: string, ds: ResolvedDatasource, reason: ConnectFailureReason, detail: string): DatasourceConnectError {
  return new DatasourceConnectError(ds.configName, reason, `Cannot connect to ${engine} datasource "${ds.configName}": ${detail}`);
}
