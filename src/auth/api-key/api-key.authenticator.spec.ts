import { describe, expect, it } from 'vitest';
import { hashApiKey, newApiKey } from './api-key-secret.js';
import type { ApiKeyRecord } from './api-key.entity.js';
import { ApiKeyAuthenticator } from './api-key.authenticator.js';
import type { ApiKeyRepository } from './api-key.repository.js';

const ADMIN = ['x'.repeat(32), 'y'.repeat(40)];

function storeWith(records: ApiKeyRecord[]): { repository: ApiKeyRepository; lookups: string[] } {
  const lookups: string[] = [];
  const repository = {
    findActiveByHash: async (hash: string) => {
      lookups.push(hash);
      return records.find((record) => record.keyHash === hash && record.revokedAt === null) ?? null;
    },
  } as unknown as ApiKeyRepository;
  return { repository, lookups };
}

const record = (key: string, revokedAt: Date | null = null): ApiKeyRecord => ({
  id: '0190f3c2-0000-7000-8000-000000000001',
  productName: 'reporter',
  name: 'k',
  keyHash: hashApiKey(key),
  createdBy: null,
  createdAt: new Date(),
  revokedAt,
});

describe('ApiKeyAuthenticator', () => {
  it('makes an operator of any AUTH_ADMIN_KEYS key, without looking in the store', async () => {
    const { repository, lookups } = storeWith([]);
    const authenticator = new ApiKeyAuthenticator(ADMIN, repository);
    await expect(authenticator.authenticate(ADMIN[1])).resolves.toEqual({
      id: 'admin-key:2',
      method: 'apikey',
      operator: true,
      products: [],
    });
    expect(lookups).toEqual([]);
  });

  it('makes a product principal of an active product key, found by its hash', async () => {
    const key = newApiKey();
    const { repository, lookups } = storeWith([record(key)]);
    await expect(new ApiKeyAuthenticator(ADMIN, repository).authenticate(key)).resolves.toEqual({
      id: 'apikey:0190f3c2-0000-7000-8000-000000000001',
      method: 'apikey',
      operator: false,
      products: ['reporter'],
    });
    expect(lookups).toEqual([hashApiKey(key)]);
  });

  it('refuses a revoked key, an unknown key, a prefix of an admin key and anything not shaped like a key (401)', async () => {
    const revoked = newApiKey();
    const { repository, lookups } = storeWith([record(revoked, new Date())]);
    const authenticator = new ApiKeyAuthenticator(ADMIN, repository);
    for (const credential of [revoked, newApiKey(), ADMIN[0].slice(0, 31), `${ADMIN[0]}x`, 'Bearer', 'fet_short']) {
      await expect(authenticator.authenticate(credential)).rejects.toMatchObject({ code: 'FET-0010', status: 401 });
    }
    // Only the two well-formed keys cost a store lookup.
    expect(lookups).toHaveLength(2);
  });
});
