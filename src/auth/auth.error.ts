import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';

/** RFC 6750 §3: what a 401 tells the client about the scheme it must use. */
const CHALLENGE = 'Bearer realm="fetcher"';

/**
 * Why a credential that was sent was refused: a bounded set, the `reason` label of
 * fetcher_auth_failures_total. `missing` (no credential at all) is not a failed authentication.
 */
export type AuthFailureReason = 'missing' | 'malformed' | 'unknown_key' | 'expired' | 'bad_signature' | 'algorithm' | 'claims' | 'invalid';

/** Authentication (401, with a Bearer challenge) and authorization (403) refusals. */
export class AuthError extends FetcherError {
  private constructor(
    code: FetCode,
    message: string,
    headers?: Record<string, string>,
    /** Set on a 401: what was wrong with the credential. */
    readonly reason?: AuthFailureReason,
  ) {
    super(code, message, { headers });
  }

  /** No credential (`missing`), or one that is not valid (unknown, revoked, expired, badly signed). */
  static unauthenticated(
    message: string,
    invalidToken = false,
    reason: AuthFailureReason = invalidToken ? 'invalid' : 'missing',
  ): AuthError {
    const challenge = invalidToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE;
    return new AuthError(FetCode.Unauthenticated, message, { 'WWW-Authenticate': challenge }, reason);
  }

  /** A valid credential that may not do this. */
  static forbidden(message: string): AuthError {
    return new AuthError(FetCode.Forbidden, message);
  }
}
