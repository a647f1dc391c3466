import { describe, expect, it } from 'vitest';
import { requestHash } from './request-hash.js';

const base = {
  dataRequest: { mappedFields: { pg: { accounts: ['id', 'email'] } } },
  metadata: { source: 'reporter', correlationId: 'a' },
};

describe('requestHash', () => {
  it('is a stable lowercase SHA-256 hex', () => {
    expect(requestHash(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash(base)).toBe(requestHash(structuredClone(base)));
  });

  it('ignores key order at every level', () => {
    const reordered = {
      metadata: { correlationId: 'a', source: 'reporter' },
      dataRequest: { mappedFields: { pg: { accounts: ['id', 'email'] } } },
    };
    expect(requestHash(reordered)).toBe(requestHash(base));
  });

  it('changes with metadata, with field order and with filters', () => {
    expect(requestHash({ ...base, metadata: { ...base.metadata, correlationId: 'b' } })).not.toBe(requestHash(base));
    expect(requestHash({ ...base, dataRequest: { mappedFields: { pg: { accounts: ['email', 'id'] } } } })).not.toBe(requestHash(base));
    expect(requestHash({ ...base, dataRequest: { ...base.dataRequest, filters: { pg: { accounts: { id: { eq: [1] } } } } } })).not.toBe(
      requestHash(base),
    );
  });
});
