import { createHash, randomBytes } from 'node:crypto';

/** `fet_` and 32 random bytes in base64url: recognisable in a leak scan, unguessable. */
const KEY_PATTERN = /^fet_[A-Za-z0-9_-]{43}$/;

export function newApiKey(): string {
  return `fet_${randomBytes(32).toString('base64url')}`;
}

export function looksLikeApiKey(credential: string): boolean {
  return KEY_PATTERN.test(credential);
}

/**
 * SHA-256, not a slow password hash: the key carries 256 random bits, so nothing is gained by
 * stretching, and every request must be able to look it up.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
