import { hkdfSync } from 'node:crypto';

/** HKDF `info` labels; identical to the original service (docs/compatibility.md#key-derivation) so its consumers can verify our results. */
export enum KeyPurpose {
  Credentials = 'fetcher-credentials-v1',
  /** The original's external HMAC key (docs/compatibility.md#key-derivation): results' `resultHmac`, and the signatures of the events. */
  ResultHmac = 'fetcher-external-hmac-v1',
  ResultEncryption = 'fetcher-storage-encryption-v1',
}

/** HKDF-SHA256 over the decoded master key, no salt, 32 bytes. */
export function deriveKey(masterKey: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, 32));
}

/** The two keys a result consumer needs: verifying `resultHmac` and decrypting the object. */
export interface ResultKeys {
  /** HKDF `fetcher-external-hmac-v1`. */
  readonly hmacKey: Buffer;
  /** HKDF `fetcher-storage-encryption-v1`. */
  readonly encryptionKey: Buffer;
}

export function deriveResultKeys(masterKey: Buffer): ResultKeys {
  return { hmacKey: deriveKey(masterKey, KeyPurpose.ResultHmac), encryptionKey: deriveKey(masterKey, KeyPurpose.ResultEncryption) };
}
