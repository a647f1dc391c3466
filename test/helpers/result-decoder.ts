import { createDecipheriv, createHmac, hkdfSync } from 'node:crypto';

/**
 * An independent reading of docs/value-mapping.md, "The stored object", written from the docs
 * rather than from src/storage, so the end-to-end tests check the stored format itself:
 * base64(nonce ‖ AES-256-GCM ciphertext ‖ tag), HMAC-SHA256 over the plaintext, both keys by
 * HKDF-SHA256 (no salt) of the master key.
 */
export function decodeStoredResult(stored: Buffer | string, masterKeyBase64: string): { plaintext: string; bytes: Buffer; hmac: string } {
  const master = Buffer.from(masterKeyBase64, 'base64');
  const key = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
  const text = typeof stored === 'string' ? stored : stored.toString('ascii');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('stored object is not standard base64');
  const raw = Buffer.from(text, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key('fetcher-storage-encryption-v1'), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  const plaintext = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
  const hmac = createHmac('sha256', key('fetcher-external-hmac-v1')).update(plaintext).digest('hex');
  // `bytes` for a compressed or binary plaintext (a gzip part, parquet), which is no UTF-8 text.
  return { plaintext: plaintext.toString('utf8'), bytes: plaintext, hmac };
}
