import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../config/load-config.js';
import { CredentialCipher, CredentialKeyError } from './credential-cipher.service.js';
import { openSealedCredential as openWith } from './testing/service-datasources.js';

const KEY_1 = randomBytes(32).toString('base64');
const KEY_2 = randomBytes(32).toString('base64');

function cipherFor(env: Record<string, string>): CredentialCipher {
  return new CredentialCipher(loadAppConfig({ DATA_DIR: '/nonexistent/fetcher-cipher-spec', ...env }));
}

describe('CredentialCipher keyring', () => {
  const v1 = cipherFor({ APP_ENC_KEY: KEY_1 });
  const v2WithV1 = cipherFor({ APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 });
  const v2Only = cipherFor({ APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2' });

  it('encrypts under the current version with the current master key', () => {
    expect(v2WithV1.keyVersion).toBe('2');
    const sealed = v2WithV1.encrypt('pw-2');
    expect(openWith(KEY_2, sealed)).toBe('pw-2');
    expect(() => openWith(KEY_1, sealed)).toThrow(/unable to authenticate/);
  });

  it('opens a secret of an older version through the keyring, and the current one alike', () => {
    expect(v2WithV1.decrypt(v1.encrypt('pw-from-v1'), '1')).toBe('pw-from-v1');
    expect(v2WithV1.decrypt(v2WithV1.encrypt('pw-from-v2'), '2')).toBe('pw-from-v2');
    expect(v2WithV1.decryptOptional(v1.encrypt('-----BEGIN CERTIFICATE-----'), '1')).toBe('-----BEGIN CERTIFICATE-----');
  });

  it('refuses a version that is not configured, naming the variable to set and no key', () => {
    const sealed = v1.encrypt('pw');
    let caught: unknown;
    try {
      v2Only.decrypt(sealed, '1');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CredentialKeyError);
    const message = (caught as Error).message;
    expect(message).toMatch(/key version 1, which is not configured: set APP_ENC_KEY_1/);
    for (const key of [KEY_1, KEY_2]) {
      expect(message).not.toContain(key);
      expect(message).not.toContain(Buffer.from(key, 'base64').toString('hex'));
    }
    expect(v2Only.canOpen('1')).toBe(false);
    expect(v2WithV1.canOpen('1')).toBe(true);
  });

  it('says which variable holds the wrong key when a configured version does not open the secret', () => {
    const wrongV1 = cipherFor({ APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: randomBytes(32).toString('base64') });
    expect(() => wrongV1.decrypt(v1.encrypt('pw'), '1')).toThrow(/APP_ENC_KEY_1 is not the key it was encrypted with/);
    expect(() => v2Only.decrypt(v1.encrypt('pw'), '2')).toThrow(/APP_ENC_KEY is not the key/);
  });

  it('never opens an empty value (a cleared password) and keeps it empty when resealing', () => {
    expect(v2Only.decrypt('', '1')).toBe('');
    expect(v2Only.decryptOptional('', '1')).toBeUndefined();
    expect(v2Only.reseal('', '1')).toBe('');
    expect(v2Only.reseal(null, '1')).toBeNull();
  });

  it('reseals an older secret under the current version', () => {
    const resealed = v2WithV1.reseal(v1.encrypt('key-material'), '1');
    expect(openWith(KEY_2, resealed)).toBe('key-material');
    expect(v2Only.decrypt(resealed, '2')).toBe('key-material');
  });
});
