import { FetCode } from '../engine/errors/fet-code.js';
import { FetcherError } from '../engine/errors/fetcher-error.js';

/** RFC 6750 §3: what a 401 tells the client about the scheme it must use. */
const CHALLENGE = 'Bearer realm="fetcher"';

/** Authentication (401, with a Bearer challenge) and authorization (403) refusals. */
export class AuthError extends FetcherError {
  private constructor(code: FetCode, message: string, headers?: Record<string, string>) {
    super(code, message, { headers });
  }

  /** No credential, or one that is not valid (unknown, revoked, expired, badly signed). */
  static unauthenticated(message: string, invalidToken = false): AuthError {
    const challenge = invalidToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE;
    return new AuthError(FetCode.Unauthenticated, message, { 'WWW-Authenticate': challenge });
  }

  /** A valid credential that may not do this. */
  static forbidden(message: string): AuthError {
    return new AuthError(FetCode.Forbidden, message);
  }
}
