import { errors } from 'jose';
import { AuthError } from '../auth.error.js';
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
export function invalidToken(message: string): AuthError {
  return AuthError.unauthenticated(message, true);
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
  if (error instanceof errors.JWTExpired) return invalidToken('token expired');
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error);
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalidToken('token signature is invalid');
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return invalidToken('token algorithm is not accepted');
  }
  if (error instanceof errors.JWKSNoMatchingKey) return invalidToken('token names an unknown key');
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return invalidToken('malformed token');
  return invalidToken('token cannot be verified');
}

function claimFailure(error: InstanceType<typeof errors.JWTClaimValidationFailed>): AuthError {
  const { claim, reason } = error;
  if (reason === 'invalid') return invalidToken('malformed token');
  switch (claim) {
    case 'exp':
      return invalidToken('token has no expiry');
    case 'nbf':
      return invalidToken('token not yet valid');
    case 'aud':
      return invalidToken('token audience is not accepted');
    case 'iss':
      return invalidToken('token issuer is not accepted');
    case 'sub':
      return invalidToken('token has no subject');
    default:
      return invalidToken('token claims are not valid');
  }
}
