import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const GCM_NONCE_BYTES = 12;
export const GCM_TAG_BYTES = 16;

/** base64(nonce ‖ ciphertext ‖ tag), the format of stored credentials and result objects. */
export function sealToBase64(key: Buffer, plaintext: Buffer | string): string {
  const nonce = randomBytes(GCM_NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

export function openFromBase64(key: Buffer, sealed: string | Buffer): Buffer {
  const raw = Buffer.isBuffer(sealed) ? Buffer.from(sealed.toString('ascii'), 'base64') : Buffer.from(sealed, 'base64');
  if (raw.length < GCM_NONCE_BYTES + GCM_TAG_BYTES) throw new Error('sealed value is too short');
  const nonce = raw.subarray(0, GCM_NONCE_BYTES);
  const tag = raw.subarray(raw.length - GCM_TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(raw.subarray(GCM_NONCE_BYTES, raw.length - GCM_TAG_BYTES)), decipher.final()]);
}
