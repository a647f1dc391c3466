import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors, type JWSAlgorithm, type JWTVerifyGetKey } from 'jose';
import { KeySetUnavailable } from './jwt-failure.js';

/**
 * Signature algorithms a token may use. Asymmetric only: with an HMAC algorithm the "secret"
 * would be the public key everyone can read, and `none` is no signature at all.
 */
export const ACCEPTED_ALGORITHMS: readonly JWSAlgorithm[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
]);

const RSA_ALGORITHMS: readonly JWSAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_ALGORITHMS: Readonly<Record<string, readonly JWSAlgorithm[]>> = {
  prime256v1: ['ES256'],
  secp384r1: ['ES384'],
  secp521r1: ['ES512'],
};

export interface JwksTiming {
  /** A JWKS request that takes longer fails, so a hung issuer cannot hold requests for long. */
  readonly timeoutMs: number;
  /** After a successful fetch, unknown `kid`s do not trigger another one for this long. */
  readonly cooldownMs: number;
  /** Keys older than this are fetched again before use, so a withdrawn key stops working. */
  readonly cacheMaxAgeMs: number;
}

export const DEFAULT_JWKS_TIMING: JwksTiming = Object.freeze({ timeoutMs: 5_000, cooldownMs: 30_000, cacheMaxAgeMs: 600_000 });

/** What tokens are verified against, and the algorithms that key material can check. */
export interface KeySource {
  readonly key: KeyObject | JWTVerifyGetKey;
  readonly algorithms: readonly JWSAlgorithm[];
}

/**
 * Keys from a JWKS endpoint. jose caches them, fetches again when a token names an unknown `kid`
 * (at most once per cooldown, so a flood of made-up `kid`s cannot hammer the issuer) and shares
 * one fetch between concurrent requests. A failed fetch leaves nothing behind: the next request
 * fetches again.
 */
export function remoteKeySource(jwksUrl: string, timing: JwksTiming = DEFAULT_JWKS_TIMING): KeySource {
  const remote = createRemoteJWKSet(new URL(jwksUrl), {
    timeoutDuration: timing.timeoutMs,
    cooldownDuration: timing.cooldownMs,
    cacheMaxAge: timing.cacheMaxAgeMs,
  });
  const key: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      // These say something about the token; everything else is about the endpoint.
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported
      ) {
        throw error;
      }
      throw new KeySetUnavailable(error);
    }
  };
  return { key, algorithms: ACCEPTED_ALGORITHMS };
}

/**
 * One configured PEM public key. The algorithms are narrowed to the key's type, so a token
 * claiming an algorithm the key cannot check is refused as such instead of failing inside jose.
 */
export function publicKeySource(publicKeyPem: string): KeySource {
  const key = createPublicKey(publicKeyPem);
  return { key, algorithms: algorithmsFor(key) };
}

function algorithmsFor(key: KeyObject): readonly JWSAlgorithm[] {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return RSA_ALGORITHMS;
  if (type === 'ed25519') return ['EdDSA'];
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (type === 'ec' && curve !== undefined && EC_ALGORITHMS[curve]) return EC_ALGORITHMS[curve];
  throw new Error(
    `AUTH_JWT_PUBLIC_KEY: a ${type ?? 'unknown'}${curve ? ` (${curve})` : ''} key cannot verify JWTs; use RSA, EC P-256/P-384/P-521 or Ed25519`,
  );
}
