import { describe, expect, it } from 'vitest';
import { hashApiKey, newApiKey } from './api-key-secret.js';
import type { ApiKeyRecord } from './api-key.entity.js';
import { ApiKeyAuthenticator, UNKNOWN_KEY_MAX_ENTRIES, UNKNOWN_KEY_TTL_MS } from './api-key.authenticator.js';
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

  describe('remembering unknown keys', () => {
    const refused = { code: 'FET-0010', status: 401, reason: 'unknown_key' };

    it('answers a flood of one unknown key from one store lookup, then asks again after a minute', async () => {
      let now = 0;
      const { repository, lookups } = storeWith([]);
      const authenticator = new ApiKeyAuthenticator(ADMIN, repository, { now: () => now });
      const unknown = newApiKey();
      for (let i = 0; i < 1_000; i += 1) await expect(authenticator.authenticate(unknown)).rejects.toMatchObject(refused);
      expect(lookups).toEqual([hashApiKey(unknown)]);
      now += UNKNOWN_KEY_TTL_MS;
      await expect(authenticator.authenticate(unknown)).rejects.toMatchObject(refused);
      expect(lookups).toHaveLength(2);
    });

    it('lets callers that arrive during a lookup of the same unknown key share it', async () => {
      const { repository, lookups } = storeWith([]);
      const authenticator = new ApiKeyAuthenticator(ADMIN, repository);
      const unknown = newApiKey();
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => authenticator.authenticate(unknown)));
      expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
      expect(lookups).toHaveLength(1);
    });

    it('still looks every valid key up, so a revocation holds at once, even for calls that joined a lookup', async () => {
      const key = newApiKey();
      const records = [record(key)];
      const { repository, lookups } = storeWith(records);
      const authenticator = new ApiKeyAuthenticator(ADMIN, repository);
      const together = await Promise.all([authenticator.authenticate(key), authenticator.authenticate(key)]);
      expect(together.map((principal) => principal.id)).toEqual([
        'apikey:0190f3c2-0000-7000-8000-000000000001',
        'apikey:0190f3c2-0000-7000-8000-000000000001',
      ]);
      expect(lookups).toHaveLength(2);
      records[0] = record(key, new Date());
      await expect(authenticator.authenticate(key)).rejects.toMatchObject(refused);
    });

    it('does not remember a lookup the store could not answer', async () => {
      const key = newApiKey();
      let down = true;
      const repository = {
        findActiveByHash: async () => {
          if (down) throw new Error('connect ECONNREFUSED');
          return record(key);
        },
      } as unknown as ApiKeyRepository;
      const authenticator = new ApiKeyAuthenticator(ADMIN, repository);
      await expect(authenticator.authenticate(key)).rejects.toThrow('ECONNREFUSED');
      down = false;
      await expect(authenticator.authenticate(key)).resolves.toMatchObject({ operator: false, products: ['reporter'] });
    });

    it('holds a bounded number of them: a flood of distinct keys pushes the oldest out', async () => {
      const { repository, lookups } = storeWith([]);
      const authenticator = new ApiKeyAuthenticator(ADMIN, repository);
      const first = newApiKey();
      await expect(authenticator.authenticate(first)).rejects.toMatchObject(refused);
      for (let i = 0; i < UNKNOWN_KEY_MAX_ENTRIES; i += 1)
        await expect(authenticator.authenticate(newApiKey())).rejects.toMatchObject(refused);
      expect(lookups).toHaveLength(UNKNOWN_KEY_MAX_ENTRIES + 1);
      await expect(authenticator.authenticate(first)).rejects.toMatchObject(refused);
      expect(lookups).toHaveLength(UNKNOWN_KEY_MAX_ENTRIES + 2);
    });
  });
});
