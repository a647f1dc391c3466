/** `plaintext_password_refused`: the password would have travelled without TLS, and that is not allowed. */
export type ConnectFailureReason =
  'auth_failed' | 'unreachable' | 'timeout' | 'tls' | 'database_not_found' | 'plaintext_password_refused' | 'unknown';

/**
 * A driver could not connect. `message` is safe to show (no host credentials, no DSN);
 * `reason` classifies the failure for clients.
 */
export class DatasourceConnectError extends Error {
  override readonly name = 'DatasourceConnectError';

  constructor(
    readonly configName: string,
    readonly reason: ConnectFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** A query or stream failed after the connection was open. `message` is safe to show. */
export class DatasourceQueryError extends Error {
  override readonly name = 'DatasourceQueryError';

  constructor(
    readonly configName: string,
    message: string,
    readonly table?: string,
  ) {
    super(message);
  }
}
