import { describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { openFromBase64, sealToBase64 } from './aes-gcm.js';
import { deriveKey, KeyPurpose } from './key-derivation.js';

describe('AES-256-GCM sealing', () => {
  const key = deriveKey(Buffer.alloc(32, 7), KeyPurpose.Credentials);

  it('round-trips and uses a fresh nonce each time', () => {
    const a = sealToBase64(key, 's3cr3t');
    const b = sealToBase64(key, 's3cr3t');
    expect(a).not.toEqual(b);
    expect(openFromBase64(key, a).toString()).toBe('s3cr3t');
  });

  it('refuses a tampered value', () => {
    const sealed = Buffer.from(sealToBase64(key, 'payload'), 'base64');
    sealed[14] ^= 1;
    expect(() => openFromBase64(key, sealed.toString('base64'))).toThrow(/unable to authenticate/);
  });

  it('derives distinct keys per purpose, stable for one master key', () => {
    const master = randomBytes(32);
    expect(deriveKey(master, KeyPurpose.ResultHmac)).toEqual(deriveKey(master, KeyPurpose.ResultHmac));
    expect(deriveKey(master, KeyPurpose.ResultHmac)).not.toEqual(deriveKey(master, KeyPurpose.ResultEncryption));
  });

  it('matches the RFC 5869 construction (HKDF-SHA256, empty salt) for a known vector', () => {
    // Independent computation: PRK = HMAC(zero-salt, IKM); OKM = HMAC(PRK, info || 0x01).
    const master = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');
    const prk = createHmac('sha256', Buffer.alloc(32)).update(master).digest();
    const okm = createHmac('sha256', prk)
      .update(Buffer.concat([Buffer.from('fetcher-external-hmac-v1'), Buffer.from([1])]))
      .digest();
    expect(deriveKey(master, KeyPurpose.ResultHmac)).toEqual(okm);
  });
});
