import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { JwtAuthConfig } from '../../config/auth.config.js';
import type { Principal } from '../principal.js';
import { hasOperatorRole, readProducts } from './jwt-claims.js';
import { invalidToken, toVerificationFailure } from './jwt-failure.js';
import { DEFAULT_JWKS_TIMING, publicKeySource, remoteKeySource, type JwksTiming, type KeySource } from './jwt-key-source.js';
import { systemClock } from '../../common/clock/clock.js';

export interface JwtVerifierOptions {
  /**
   * The instant `exp` and `nbf` are checked against. Only the claim checks use it: the JWKS
   * cache and cooldown follow the system clock, as jose keeps them.
   */
  readonly now?: () => Date;
  /** JWKS fetch timeout, cooldown and cache age; the defaults suit production. */
  readonly jwks?: Partial<JwksTiming>;
}

/**
 * Checks a bearer JWT and says who its caller is. Every refusal is an `AuthError` 401 with
 * `error="invalid_token"` and a short reason; only a key set that cannot be fetched is a
 * `ServiceUnavailableError`, because then the token itself may be valid and a retry may pass.
 */
export class JwtVerifier {
  private readonly source: KeySource;
  private readonly now: () => Date;

  constructor(
    private readonly config: JwtAuthConfig,
    options: JwtVerifierOptions = {},
  ) {
    this.now = options.now ?? (() => systemClock.now());
    if (config.jwksUrl !== undefined) {
      this.source = remoteKeySource(config.jwksUrl, { ...DEFAULT_JWKS_TIMING, ...options.jwks });
    } else if (config.publicKeyPem !== undefined) {
      this.source = publicKeySource(config.publicKeyPem);
    } else {
      throw new Error('AUTH_JWKS_URL: set exactly one of AUTH_JWKS_URL and AUTH_JWT_PUBLIC_KEY when AUTH_MODE=jwt');
    }
  }

  async verify(token: string): Promise<Principal> {
    try {
      const payload = await this.verifiedPayload(token);
      return principalOf(payload, this.config);
    } catch (error) {
      throw toVerificationFailure(error);
    }
  }

  private async verifiedPayload(token: string): Promise<JWTPayload> {
    // Checked before jose so that `none`, HMAC and algorithms the key cannot check all get the
    // same plain answer, and a JWKS is never consulted for a token that cannot pass anyway.
    const alg = algorithmOf(token);
    if (!this.source.algorithms.some((accepted) => accepted === alg)) throw invalidToken('token algorithm is not accepted', 'algorithm');

    const options: JWTVerifyOptions = {
      algorithms: [...this.source.algorithms],
      issuer: this.config.issuer,
      audience: [...this.config.audiences],
      clockTolerance: this.config.clockToleranceSeconds,
      // A token without `exp` would be a credential that never expires.
      requiredClaims: ['exp', 'sub'],
      currentDate: this.now(),
    };
    try {
      return (await jwtVerify(token, this.source.key, options)).payload;
    } catch (error) {
      if (error instanceof errors.JWKSMultipleMatchingKeys) return verifyWithEachCandidate(token, error, options);
      throw error;
    }
  }
}

function algorithmOf(token: string): unknown {
  if (typeof token !== 'string' || token.split('.').length !== 3) throw invalidToken('malformed token', 'malformed');
  try {
    return decodeProtectedHeader(token).alg;
  } catch {
    throw invalidToken('malformed token', 'malformed');
  }
}

/**
 * A token without `kid` matches every key of its type in the set, which is normal while an
 * issuer rotates; each candidate is tried and the first whose signature holds decides.
 */
async function verifyWithEachCandidate(
  token: string,
  candidates: InstanceType<typeof errors.JWKSMultipleMatchingKeys>,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  for await (const key of candidates) {
    try {
      return (await jwtVerify(token, key, options)).payload;
    } catch (error) {
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error;
    }
  }
  throw new errors.JWSSignatureVerificationFailed();
}

function principalOf(payload: JWTPayload, config: JwtAuthConfig): Principal {
  const { iss, sub } = payload;
  if (typeof sub !== 'string' || sub.trim() === '') throw invalidToken('token has no subject', 'claims');
  const products = readProducts(payload, config.productsClaim);
  const operator = hasOperatorRole(payload, config.rolesClaim);
  return Object.freeze({ id: `jwt:${iss}|${sub}`, method: 'jwt', operator, products: Object.freeze(products) });
}
