import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeDerivedKey } from './key-text.js';

describe('decodeDerivedKey', () => {
  const key = randomBytes(32);

  it('reads 64 hex digits, standard base64 and URL-safe base64 of the same 32 bytes', () => {
    expect(decodeDerivedKey(key.toString('hex'), '--hmac-key')).toEqual(key);
    expect(decodeDerivedKey(key.toString('hex').toUpperCase(), '--hmac-key')).toEqual(key);
    expect(decodeDerivedKey(` ${key.toString('base64')}\n`, '--hmac-key')).toEqual(key);
    expect(decodeDerivedKey(key.toString('base64url'), '--hmac-key')).toEqual(key);
  });

  it('refuses another length or anything else, naming the source and never the value', () => {
    const short = randomBytes(16).toString('base64');
    expect(() => decodeDerivedKey(short, 'FETCHER_RESULT_HMAC_KEY')).toThrow(
      /^FETCHER_RESULT_HMAC_KEY: must be a 32-byte key \(got 16 bytes/,
    );
    for (const bad of [short, 'not a key!', `${key.toString('hex')}00`]) {
      let message = '';
      try {
        decodeDerivedKey(bad, '--encryption-key');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^--encryption-key: /);
      expect(message).not.toContain(bad);
    }
  });
});
