import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sealToBase64 } from '../crypto/aes-gcm.js';
import { deriveKey, KeyPurpose } from '../crypto/key-derivation.js';
import { ResultCodecError } from '../errors/engine-errors.js';
import { hmacMatches, openResult } from './result-opener.js';

describe('openResult', () => {
  const master = randomBytes(32);

  it('opens an object sealed in one piece by the shared AES-GCM helper (same format as the original)', () => {
    const plaintext = '{"crm":{"customers":[{"id":1}]}}';
    const stored = Buffer.from(sealToBase64(deriveKey(master, KeyPurpose.ResultEncryption), plaintext));
    const opened = openResult(stored, master);
    expect(opened.plaintext.toString()).toBe(plaintext);
    expect(opened.hmac).toBe(createHmac('sha256', deriveKey(master, KeyPurpose.ResultHmac)).update(plaintext).digest('hex'));
  });

  it('tolerates a trailing newline but refuses text that is not standard base64', () => {
    const stored = sealToBase64(deriveKey(master, KeyPurpose.ResultEncryption), 'abc');
    expect(openResult(Buffer.from(`${stored}\n`), master).plaintext.toString()).toBe('abc');
    // Buffer.from(…, 'base64') would quietly accept URL-safe characters and skip foreign bytes.
    expect(() => openResult(Buffer.from(`-${stored.slice(1)}`), master)).toThrow(/base64/);
    expect(() => openResult(Buffer.from(`${stored.slice(0, 8)}*${stored.slice(9)}`), master)).toThrow(ResultCodecError);
    expect(() => openResult(Buffer.from('AAAA'), master)).toThrow(/too short/);
  });
});

describe('hmacMatches', () => {
  const hmac = createHmac('sha256', 'k').update('x').digest('hex');

  it('accepts the same HMAC in either case and refuses any other value', () => {
    expect(hmacMatches(hmac, hmac)).toBe(true);
    expect(hmacMatches(hmac, hmac.toUpperCase())).toBe(true);
    const flipped = `${hmac.slice(0, -1)}${hmac.endsWith('0') ? '1' : '0'}`;
    expect(hmacMatches(hmac, flipped)).toBe(false);
    expect(hmacMatches(hmac, hmac.slice(0, 62))).toBe(false);
    expect(hmacMatches(hmac, '')).toBe(false);
    expect(hmacMatches(hmac, `${hmac.slice(0, 63)}z`)).toBe(false);
  });
});
