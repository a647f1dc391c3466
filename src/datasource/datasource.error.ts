import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError, type FetcherErrorOptions } from '../common/errors/fetcher.error.js';

/** `plaintext_password_refused`: the password would have travelled without TLS and ALLOW_PLAINTEXT_PASSWORD is false. */
export type ConnectFailureReason =
  'auth_failed' | 'unreachable' | 'timeout' | 'tls' | 'database_not_found' | 'plaintext_password_refused' | 'unknown';

/** Connection records and their use: not found, conflicts, product rules, unreachable databases. */
export class DatasourceError extends FetcherError {
  constructor(code: FetCode, message: string, options: FetcherErrorOptions = {}) {
    super(code, message, options);
  }
}

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

/** 404 FET-1001 with the original's wording. */
export function notFound(entity: 'connection' | 'job' | 'api key' = 'connection'): DatasourceError {
  return new DatasourceError(
    FetCode.NotFound,
    `It was not possible to find the ${entity} entity during the requested flow. Please review the data provided in the request.`,
  );
}
