import { createHmac } from 'node:crypto';
import { deriveKey, KeyPurpose } from '../engine/crypto/key-derivation.js';

/**
 * AMQP headers of a signed event (docs/security.md, "Event signatures"). The first three are the
 * original Fetcher's, with the same names, values and types, so its consumers verify ours
 * (docs/compatibility.md#terminal-events).
 */
export const SIGNATURE_HEADERS = {
  signature: 'x-message-signature',
  timestamp: 't',
  version: 'signature-version',
  /**
   * Ours: which master key version signed. Outside the signed string (the original has no such
   * line: docs/compatibility.md#where-fetcher-differs-and-why), so altering it can only make a
   * verification fail, never pass.
   */
  keyVersion: 'x-signature-key-version',
} as const;

export const SIGNATURE_VERSION = 'v1';

/** What a signature binds: a message moved to another exchange, key, job or time no longer verifies. */
export interface SignedFields {
  /** Unix seconds of the publish. */
  readonly t: number;
  /** Empty while Fetcher has no tenants (the original signs its X-Tenant-ID here, docs/compatibility.md#terminal-events). */
  readonly tenantId: string;
  /** The body's top-level `jobId`, empty when it has none, as the original reads it (docs/compatibility.md#terminal-events). */
  readonly jobId: string;
  readonly exchange: string;
  readonly routingKey: string;
  /** The exact bytes published. */
  readonly body: Buffer;
}

/** `"<t>\n<version>\n<tenantId>\n<jobId>\n<exchange>\n<routingKey>\n" + body` */
export function signedString(fields: SignedFields): Buffer {
  const head = `${fields.t}\n${SIGNATURE_VERSION}\n${fields.tenantId}\n${fields.jobId}\n${fields.exchange}\n${fields.routingKey}\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), fields.body]);
}

/**
 * Signs events with the external HMAC key (HKDF `fetcher-external-hmac-v1`, the key results are
 * signed with) of one master key version.
 */
export class EventSigner {
  private constructor(
    private readonly key: Buffer,
    readonly keyVersion: string,
  ) {}

  static fromMasterKey(masterKey: Buffer, keyVersion: string): EventSigner {
    return new EventSigner(deriveKey(masterKey, KeyPurpose.ResultHmac), keyVersion);
  }

  /** The signature headers for a message with these fields. */
  headers(fields: SignedFields): Record<string, string> {
    return {
      [SIGNATURE_HEADERS.signature]: createHmac('sha256', this.key).update(signedString(fields)).digest('hex'),
      // A string, as the original sends it (a decimal AMQP longstr, not a number: docs/compatibility.md#terminal-events).
      [SIGNATURE_HEADERS.timestamp]: String(fields.t),
      [SIGNATURE_HEADERS.version]: SIGNATURE_VERSION,
      [SIGNATURE_HEADERS.keyVersion]: this.keyVersion,
    };
  }
}
