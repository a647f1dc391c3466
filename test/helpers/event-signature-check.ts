import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { TEST_SECRETS } from './test-secrets.js';

/**
 * A consumer's check of an event signature (docs/security.md, "Event signatures"), written from
 * that page alone: nothing here comes from src/, so a mistake in Fetcher's signer cannot be
 * repeated by its checker.
 */

/** HKDF-SHA256 of the master key, empty salt, info `fetcher-external-hmac-v1`, 32 bytes. */
export function eventSigningKey(masterKeyBase64: string = TEST_SECRETS.TEST_MASTER_KEY): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(masterKeyBase64, 'base64'), Buffer.alloc(0), 'fetcher-external-hmac-v1', 32));
}

/** An AMQP message as a consumer reads it off the wire. */
export interface RawEvent {
  readonly exchange: string;
  readonly routingKey: string;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly content: Buffer;
}

/** The replay window the page asks consumers to apply. */
export const MAX_AGE_SECONDS = 300;
export const MAX_FUTURE_SECONDS = 30;

/** Why `message` must be rejected, or null when its signature verifies with `key` and its `t` is in the window. */
export function signatureProblem(message: RawEvent, key: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): string | null {
  const signature = message.headers['x-message-signature'];
  const t = message.headers['t'];
  const version = message.headers['signature-version'];
  if (typeof signature !== 'string' || typeof t !== 'string' || typeof version !== 'string') return 'signature headers missing';
  if (version !== 'v1') return `unknown signature version ${version}`;
  if (!/^[0-9]{1,12}$/.test(t)) return `t is not Unix seconds: ${t}`;
  const age = nowSeconds - Number(t);
  if (age > MAX_AGE_SECONDS) return `t is ${age} s old`;
  if (age < -MAX_FUTURE_SECONDS) return `t is ${-age} s in the future`;
  const tenantId = typeof message.headers['X-Tenant-ID'] === 'string' ? message.headers['X-Tenant-ID'] : '';
  let jobId = '';
  try {
    const body: unknown = JSON.parse(message.content.toString('utf8'));
    const candidate = (body as { jobId?: unknown } | null)?.jobId;
    if (typeof candidate === 'string') jobId = candidate;
  } catch {
    // Not JSON: signed with an empty job id, as the original reads it.
  }
  const expected = createHmac('sha256', key)
    .update(`${t}\n${version}\n${tenantId}\n${jobId}\n${message.exchange}\n${message.routingKey}\n`)
    .update(message.content)
    .digest();
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature does not match';
  return null;
}
