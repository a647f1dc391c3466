import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
export const WEBHOOK_SIGNATURE_VERSION = 'v1';

/** A new signing secret: 32 random bytes, shown as `whsec_<base64>` (the Standard Webhooks form). */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_` secret: its base64 part decoded (both signatures are keyed with them). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** Fields one POST is signed over. */
export interface SignedDelivery {
  readonly deliveryId: string;
  /** Unix seconds of this attempt. */
  readonly t: number;
  /** The exact bytes sent. */
  readonly body: Buffer;
}

/**
 * The signature headers of one attempt (docs/webhooks.md, "Signatures"):
 * - the original Fetcher's (its BuildSignaturePayload, docs/compatibility.md#webhook-signatures): `t`, `x-message-signature` = hex
 *   HMAC-SHA256 over `"<t>." + body`, `signature-version: v1`;
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` = `v1,` + base64
 *   HMAC-SHA256 over `"<id>.<t>." + body`.
 * Both are keyed with the same 32 bytes, the decoded base64 part of the webhook's secret.
 */
export function signatureHeaders(secret: string, delivery: SignedDelivery): Record<string, string> {
  const key = secretKey(secret);
  const t = String(delivery.t);
  const legacy = createHmac('sha256', key).update(`${t}.`).update(delivery.body).digest('hex');
  const standard = createHmac('sha256', key).update(`${delivery.deliveryId}.${t}.`).update(delivery.body).digest('base64');
  return {
    t,
    'x-message-signature': legacy,
    'signature-version': WEBHOOK_SIGNATURE_VERSION,
    'webhook-id': delivery.deliveryId,
    'webhook-timestamp': t,
    'webhook-signature': `v1,${standard}`,
  };
}
