import { createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventSigner, signedString, type SignedFields } from './event-signature.js';

// A fixed example: master key 32 × 0x2a (the suite's test key).
const MASTER_KEY = Buffer.alloc(32, 0x2a);
const JOB_ID = '7d3c1a4e-0b7f-4d8e-9a61-2f5e8c9b0a13';
const BODY = `{"jobId":"${JOB_ID}","status":"failed"}`;
const FIELDS: SignedFields = {
  t: 1767225600,
  tenantId: '',
  jobId: JOB_ID,
  exchange: 'fetcher.job.events',
  routingKey: 'job.failed',
  body: Buffer.from(BODY),
};
const DOCUMENTED_SIGNATURE = 'b9f53e42430634545bc6f5e6890ae88a007317ea7cdc32011f489b5c24a70267';

describe('EventSigner', () => {
  const signer = EventSigner.fromMasterKey(MASTER_KEY, '3');

  it('signs the documented string with HKDF(master, info fetcher-external-hmac-v1), as a consumer recomputes it', () => {
    expect(signedString(FIELDS).toString()).toBe(`1767225600\nv1\n\n${JOB_ID}\nfetcher.job.events\njob.failed\n${BODY}`);
    const consumerKey = Buffer.from(hkdfSync('sha256', MASTER_KEY, Buffer.alloc(0), 'fetcher-external-hmac-v1', 32));
    const recomputed = createHmac('sha256', consumerKey)
      .update(`1767225600\nv1\n\n${JOB_ID}\nfetcher.job.events\njob.failed\n${BODY}`)
      .digest('hex');
    expect(recomputed).toBe(DOCUMENTED_SIGNATURE);
    expect(signer.headers(FIELDS)).toEqual({
      'x-message-signature': DOCUMENTED_SIGNATURE,
      t: '1767225600',
      'signature-version': 'v1',
      'x-signature-key-version': '3',
    });
  });

  it('binds every field: changing any one gives another signature', () => {
    const base = signer.headers(FIELDS)['x-message-signature'];
    const variants: SignedFields[] = [
      { ...FIELDS, t: FIELDS.t + 1 },
      { ...FIELDS, tenantId: 'acme' },
      { ...FIELDS, jobId: '' },
      { ...FIELDS, exchange: 'fetcher.job.events.copy' },
      { ...FIELDS, routingKey: 'job.completed' },
      { ...FIELDS, body: Buffer.from(BODY.replace('failed', 'completed')) },
      { ...FIELDS, body: Buffer.from(`${BODY} `) },
    ];
    const signatures = variants.map((fields) => signer.headers(fields)['x-message-signature']);
    expect(signatures.every((signature) => signature !== base)).toBe(true);
    expect(new Set(signatures).size).toBe(variants.length);
  });

  it('keeps the lines apart: a value cannot slide from one field into the next', () => {
    const a = signer.headers({ ...FIELDS, exchange: 'events', routingKey: 'job.failed' })['x-message-signature'];
    const b = signer.headers({ ...FIELDS, exchange: 'eventsjob', routingKey: '.failed' })['x-message-signature'];
    expect(a).not.toBe(b);
  });

  it('signs with the key of its master key only', () => {
    const other = EventSigner.fromMasterKey(Buffer.alloc(32, 0x2b), '4');
    expect(other.headers(FIELDS)['x-message-signature']).not.toBe(DOCUMENTED_SIGNATURE);
    expect(other.headers(FIELDS)['x-signature-key-version']).toBe('4');
  });
});
