import { createHash, timingSafeEqual } from 'node:crypto';
import { ExpiringMap } from '../../common/cache/expiring-map.js';
import { AuthError } from '../auth.error.js';
import type { Authenticator } from '../authenticator.port.js';
import type { Principal } from '../principal.js';
import { hashApiKey, looksLikeApiKey } from './api-key-secret.js';
import type { ApiKeyRecord } from './api-key.entity.js';
import type { ApiKeyRepository } from './api-key.repository.js';

/** How long a key the store did not know is answered 401 without asking the store again. */
export const UNKNOWN_KEY_TTL_MS = 60_000;
/** Hashes of unknown keys held at once; the oldest go first (about 1.5 MiB when full). */
export const UNKNOWN_KEY_MAX_ENTRIES = 10_000;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export interface ApiKeyAuthenticatorOptions {
  readonly now?: () => number;
}

/**
 * AUTH_MODE=apikey: operator keys from the environment, product keys from the store. Every key
 * that may be valid is looked up, so a revocation holds at once; a key the store did not know is
 * remembered (by its hash, never the key) for a minute, so a flood of one bad key costs one lookup.
 * That never shadows a real key: a product key is 256 random bits shown only once it is stored,
 * so it cannot have been tried before it existed.
 */
export class ApiKeyAuthenticator implements Authenticator {
  private readonly adminDigests: readonly Buffer[];
  private readonly unknown: ExpiringMap<true>;
  /** Lookups under way, by key hash: callers that arrive meanwhile share a "no such key". */
  private readonly lookups = new Map<string, Promise<ApiKeyRecord | null>>();

  constructor(
    adminKeys: readonly string[],
    private readonly keys: ApiKeyRepository,
    options: ApiKeyAuthenticatorOptions = {},
  ) {
    this.adminDigests = adminKeys.map(digest);
    this.unknown = new ExpiringMap(UNKNOWN_KEY_TTL_MS, UNKNOWN_KEY_MAX_ENTRIES, options.now);
  }

  async authenticate(credential: string): Promise<Principal> {
    // Digests of equal length, compared against every operator key, so timing says nothing about which part matched.
    const candidate = digest(credential);
    let adminIndex = -1;
    this.adminDigests.forEach((known, index) => {
      if (timingSafeEqual(known, candidate) && adminIndex < 0) adminIndex = index;
    });
    if (adminIndex >= 0) return { id: `admin-key:${adminIndex + 1}`, method: 'apikey', operator: true, products: [] };

    if (!looksLikeApiKey(credential)) throw AuthError.unauthenticated('The API key is not valid', true, 'malformed');
    const keyHash = hashApiKey(credential);
    if (this.unknown.has(keyHash)) throw unknownKey();
    const record = await this.lookUp(keyHash);
    if (!record) {
      this.unknown.set(keyHash, true);
      throw unknownKey();
    }
    return { id: `apikey:${record.id}`, method: 'apikey', operator: false, products: [record.productName] };
  }

  /**
   * A lookup of its own, unless one for the same hash is under way: a caller that joins it takes
   * its "no such key", but a key it found is looked up again, so a revocation committed while the
   * shared lookup ran is never missed.
   */
  private async lookUp(keyHash: string): Promise<ApiKeyRecord | null> {
    const shared = this.lookups.get(keyHash);
    if (shared && (await shared) === null) return null;
    const own = this.keys.findActiveByHash(keyHash).finally(() => {
      if (this.lookups.get(keyHash) === own) this.lookups.delete(keyHash);
    });
    this.lookups.set(keyHash, own);
    return own;
  }
}

const unknownKey = (): AuthError => AuthError.unauthenticated('The API key is not valid or has been revoked', true, 'unknown_key');
