import { errors } from 'jose';
import { AuthError, type AuthFailureReason } from '../auth.error.js';
import { ServiceUnavailableError } from '../../common/errors/request-errors.js';

/**
 * The key set could not be had (unreachable, timed out, not a JWKS). Raised by the key source
 * so that it is never mistaken for a bad token: the caller's token may be perfectly fine.
 */
export class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super('the JWT key set could not be fetched', { cause });
    this.name = 'KeySetUnavailable';
  }
}

/** A refusal with a short message that is safe to show the caller and never echoes the token. */
export function invalidToken(message: string, reason: AuthFailureReason = 'invalid'): AuthError {
  return AuthError.unauthenticated(message, true, reason);
}

/**
 * Turns whatever verification threw into the error the caller sees. jose's own messages are not
 * passed on: they are worded for developers, may change between versions, and some quote claim
 * values. Anything not recognised is still a 401, since only key-set trouble may be a 503.
 */
export function toVerificationFailure(error: unknown): AuthError | ServiceUnavailableError {
  if (error instanceof AuthError) return error;
  if (error instanceof KeySetUnavailable) {
    return new ServiceUnavailableError('the signing keys of the token issuer cannot be fetched right now; please retry', { cause: error });
  }
  if (error instanceof errors.JWTExpired) return invalidToken('token expired', 'expired');
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error);
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalidToken('token signature is invalid', 'bad_signature');
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return invalidToken('token algorithm is not accepted', 'algorithm');
  }
  if (error instanceof errors.JWKSNoMatchingKey) return invalidToken('token names an unknown key', 'bad_signature');
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return invalidToken('malformed token', 'malformed');
  return invalidToken('token cannot be verified');
}

function claimFailure(error: InstanceType<typeof errors.JWTClaimValidationFailed>): AuthError {
  const { claim, reason } = error;
  if (reason === 'invalid') return invalidToken('malformed token', 'malformed');
  switch (claim) {
    case 'exp':
      return invalidToken('token has no expiry', 'claims');
    case 'nbf':
      return invalidToken('token not yet valid', 'claims');
    case 'aud':
      return invalidToken('token audience is not accepted', 'claims');
    case 'iss':
      return invalidToken('token issuer is not accepted', 'claims');
    case 'sub':
      return invalidToken('token has no subject', 'claims');
    default:
      return invalidToken('token claims are not valid', 'claims');
  }
}
