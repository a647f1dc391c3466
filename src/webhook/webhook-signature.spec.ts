import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, secretKey, signatureHeaders } from './webhook-signature.js';

describe('webhook signatures', () => {
  const body = Buffer.from('{"jobId":"0190f3c2-0000-7000-8000-000000000000","status":"completed"}', 'utf8');

  it('issues whsec_ secrets of 32 random bytes', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('signs as the original (hex over "<t>." + body) and as Standard Webhooks (base64 over "<id>.<t>." + body), with the decoded secret', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const headers = signatureHeaders(secret, { deliveryId: 'd-1', t: 1767225600, body });
    // Recomputed independently with node:crypto, the key being the 32 decoded bytes.
    const key = Buffer.alloc(32, 7);
    expect(headers).toEqual({
      t: '1767225600',
      'x-message-signature': createHmac('sha256', key)
        .update(`1767225600.${body.toString('utf8')}`)
        .digest('hex'),
      'signature-version': 'v1',
      'webhook-id': 'd-1',
      'webhook-timestamp': '1767225600',
      'webhook-signature': `v1,${createHmac('sha256', key)
        .update(`d-1.1767225600.${body.toString('utf8')}`)
        .digest('base64')}`,
    });
  });

  it('gives another signature for another secret, time, id or body', () => {
    const secret = newWebhookSecret();
    const base = signatureHeaders(secret, { deliveryId: 'd-1', t: 1, body });
    for (const other of [
      signatureHeaders(newWebhookSecret(), { deliveryId: 'd-1', t: 1, body }),
      signatureHeaders(secret, { deliveryId: 'd-1', t: 2, body }),
      signatureHeaders(secret, { deliveryId: 'd-1', t: 1, body: Buffer.from(`${body.toString()} `) }),
    ]) {
      expect(other['x-message-signature']).not.toBe(base['x-message-signature']);
      expect(other['webhook-signature']).not.toBe(base['webhook-signature']);
    }
    expect(signatureHeaders(secret, { deliveryId: 'd-2', t: 1, body })['webhook-signature']).not.toBe(base['webhook-signature']);
  });
});
