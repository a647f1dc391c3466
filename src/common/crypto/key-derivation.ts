import { hkdfSync } from 'node:crypto';

/** HKDF `info` labels; identical to the original service so its consumers can verify our results. */
export enum KeyPurpose {
  Credentials = 'fetcher-credentials-v1',
  ResultHmac = 'fetcher-external-hmac-v1',
  ResultEncryption = 'fetcher-storage-encryption-v1',
}

/** HKDF-SHA256 over the decoded master key, no salt, 32 bytes. */
export function deriveKey(masterKey: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, 32));
}
