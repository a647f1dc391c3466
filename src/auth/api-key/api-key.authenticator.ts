import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthError } from '../auth.error.js';
import type { Authenticator } from '../authenticator.port.js';
import type { Principal } from '../principal.js';
import { hashApiKey, looksLikeApiKey } from './api-key-secret.js';
import type { ApiKeyRepository } from './api-key.repository.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** AUTH_MODE=apikey: operator keys from the environment, product keys from the store. */
export class ApiKeyAuthenticator implements Authenticator {
  private readonly adminDigests: readonly Buffer[];

  constructor(
    adminKeys: readonly string[],
    private readonly keys: ApiKeyRepository,
  ) {
    this.adminDigests = adminKeys.map(digest);
  }

  async authenticate(credential: string): Promise<Principal> {
    // Digests of equal length, compared against every operator key, so timing says nothing about which part matched.
    const candidate = digest(credential);
    let adminIndex = -1;
    this.adminDigests.forEach((known, index) => {
      if (timingSafeEqual(known, candidate) && adminIndex < 0) adminIndex = index;
    });
    if (adminIndex >= 0) return { id: `admin-key:${adminIndex + 1}`, method: 'apikey', operator: true, products: [] };

    if (!looksLikeApiKey(credential)) throw AuthError.unauthenticated('The API key is not valid', true);
    const record = await this.keys.findActiveByHash(hashApiKey(credential));
    if (!record) throw AuthError.unauthenticated('The API key is not valid or has been revoked', true);
    return { id: `apikey:${record.id}`, method: 'apikey', operator: false, products: [record.productName] };
  }
}
