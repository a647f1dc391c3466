import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { GCM_NONCE_BYTES, GCM_TAG_BYTES } from '../crypto/aes-gcm.js';
import { deriveResultKeys, type ResultKeys } from '../crypto/key-derivation.js';
import { ResultCodecError } from '../errors/engine-errors.js';

export interface OpenedResult {
  readonly plaintext: Buffer;
  /** HMAC-SHA256 (`fetcher-external-hmac-v1` key) of the plaintext, lowercase hex. */
  readonly hmac: string;
  /** SHA-256 of the plaintext, lowercase hex. */
  readonly sha256: string;
}

/** Decoded in slices so a large object never becomes one giant JS string. Multiple of 4. */
const DECODE_SLICE_CHARS = 4 * 1024 * 1024;

/**
 * Opens a stored result object: base64 → nonce ‖ ciphertext ‖ tag → verified plaintext, and
 * recomputes the HMAC a consumer would check against `resultHmac`. Throws a ResultCodecError when the
 * object is malformed or fails GCM authentication (wrong key, or any byte changed).
 */
export function openResult(stored: Buffer, masterKey: Buffer): OpenedResult {
  return openResultWithKeys(stored, deriveResultKeys(masterKey));
}

/** As openResult, with the two derived keys instead of the master key (what a consumer holds). */
export function openResultWithKeys(stored: Buffer, keys: ResultKeys): OpenedResult {
  const raw = decodeBase64(stored);
  if (raw.length < GCM_NONCE_BYTES + GCM_TAG_BYTES) {
    throw new ResultCodecError(`result object is too short to be sealed (${raw.length} bytes decoded)`);
  }
  const nonce = raw.subarray(0, GCM_NONCE_BYTES);
  const tag = raw.subarray(raw.length - GCM_TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', keys.encryptionKey, nonce);
  decipher.setAuthTag(tag);
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(raw.subarray(GCM_NONCE_BYTES, raw.length - GCM_TAG_BYTES)), decipher.final()]);
  } catch {
    throw new ResultCodecError('result object failed authentication: it was modified, or it was sealed with another key');
  }
  return {
    plaintext,
    hmac: createHmac('sha256', keys.hmacKey).update(plaintext).digest('hex'),
    sha256: createHash('sha256').update(plaintext).digest('hex'),
  };
}

/** Constant-time comparison of two hex HMACs; case-insensitive, false for anything malformed. */
export function hmacMatches(actual: string, expected: string): boolean {
  const hex = /^[0-9a-fA-F]{64}$/;
  if (!hex.test(actual) || !hex.test(expected)) return false;
  return timingSafeEqual(Buffer.from(actual, 'hex'), Buffer.from(expected, 'hex'));
}

function decodeBase64(stored: Buffer): Buffer {
  let end = stored.length;
  // Tolerate trailing whitespace added by a download tool or an editor; nothing else.
  while (end > 0 && (stored[end - 1] === 0x0a || stored[end - 1] === 0x0d || stored[end - 1] === 0x20)) end -= 1;
  const text = stored.subarray(0, end);
  const malformed = () => new ResultCodecError('result object is not standard base64 text');
  if (text.length % 4 !== 0) throw malformed();
  const out = Buffer.allocUnsafe((text.length / 4) * 3);
  let written = 0;
  for (let offset = 0; offset < text.length; offset += DECODE_SLICE_CHARS) {
    const last = offset + DECODE_SLICE_CHARS >= text.length;
    const slice = text.subarray(offset, Math.min(offset + DECODE_SLICE_CHARS, text.length)).toString('latin1');
    // Node's decoder silently skips foreign characters; refuse them instead of guessing.
    if (!(last ? FINAL_SLICE : INNER_SLICE).test(slice)) throw malformed();
    written += out.write(slice, written, 'base64');
  }
  return out.subarray(0, written);
}

const INNER_SLICE = /^[A-Za-z0-9+/]*$/;
const FINAL_SLICE = /^[A-Za-z0-9+/]*={0,2}$/;
