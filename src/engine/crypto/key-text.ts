export const DERIVED_KEY_BYTES = 32;

/**
 * Reads a 32-byte key given as 64 hex digits or standard/URL-safe base64. Errors name `source`
 * (the flag or variable) and never echo the value, which is a secret.
 */
export function decodeDerivedKey(text: string, source: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const key = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === DERIVED_KEY_BYTES) return key;
    throw new Error(`${source}: must be a ${DERIVED_KEY_BYTES}-byte key (got ${key.length} bytes after base64 decoding)`);
  }
  throw new Error(`${source}: must be 64 hex digits or the base64 of ${DERIVED_KEY_BYTES} bytes`);
}

/**
 * Reads a master key (the service's APP_ENC_KEY): standard base64 of at least 32 bytes. Errors
 * name `source` and never echo the value.
 */
export function decodeMasterKey(text: string, source: string): Buffer {
  const value = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) throw new Error(`${source}: must be standard base64`);
  const key = Buffer.from(value, 'base64');
  if (key.length < 32) throw new Error(`${source}: must decode to at least 32 bytes (got ${key.length})`);
  return key;
}
