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

describe('requestHash and output', () => {
  // The digest of `base` before jobs had an output: a job of the default output must keep answering it.
  const BEFORE_OUTPUT = '42c54ba444e6b1ef90d70402bcdf23c26e73b15480597021ec939d31c74ed3ad';

  it('is unchanged for the default output, given or not, whole or in part', () => {
    expect(requestHash(base)).toBe(BEFORE_OUTPUT);
    expect(requestHash({ ...base, output: null })).toBe(BEFORE_OUTPUT);
    expect(requestHash({ ...base, output: {} })).toBe(BEFORE_OUTPUT);
    expect(requestHash({ ...base, output: { format: 'json' } })).toBe(BEFORE_OUTPUT);
    expect(requestHash({ ...base, output: { format: 'json', compression: 'none' } })).toBe(BEFORE_OUTPUT);
  });

  it('changes with any other output, its absent members taking their defaults', () => {
    const csv = requestHash({ ...base, output: { format: 'csv' } });
    expect(csv).not.toBe(BEFORE_OUTPUT);
    expect(requestHash({ ...base, output: { format: 'csv', compression: 'none' } })).toBe(csv);
    expect(requestHash({ ...base, output: { format: 'csv', compression: 'gzip' } })).not.toBe(csv);
    expect(requestHash({ ...base, output: { compression: 'gzip' } })).not.toBe(BEFORE_OUTPUT);
    expect(requestHash({ ...base, output: { format: 'ndjson' } })).not.toBe(BEFORE_OUTPUT);
  });
});

describe('requestHash and incremental streams', () => {
  const BEFORE_OUTPUT = '42c54ba444e6b1ef90d70402bcdf23c26e73b15480597021ec939d31c74ed3ad';
  const incremental = {
    ...base,
    dataRequest: { ...base.dataRequest, incremental: { stream: 'nightly', cursors: { pg: { accounts: 'id' } } } },
  };
  const mark = (value: string) => ({ pg: { accounts: { column: 'id', type: 'integer' as const, value } } });

  it('leaves a request without incremental as it hashed before streams, byte for byte', () => {
    expect(requestHash(base)).toBe(BEFORE_OUTPUT);
    expect(requestHash(base, undefined)).toBe(BEFORE_OUTPUT);
  });

  it('hashes the committed marks with an incremental request: unmoved marks, the same job; moved ones, another', () => {
    const first = requestHash(incremental, {});
    expect(first).not.toBe(BEFORE_OUTPUT);
    expect(requestHash(structuredClone(incremental), {})).toBe(first);
    const after = requestHash(incremental, mark('20'));
    expect(after).not.toBe(first);
    expect(requestHash(incremental, mark('20'))).toBe(after);
    expect(requestHash(incremental, mark('21'))).not.toBe(after);
    // The marks are their own member: the request without them is another hash again.
    expect(requestHash(incremental)).not.toBe(first);
  });
});
