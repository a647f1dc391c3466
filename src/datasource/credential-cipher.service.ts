import { Inject, Injectable } from '@nestjs/common';
import { openFromBase64, sealToBase64 } from '../engine/crypto/aes-gcm.js';
import { deriveKey, KeyPurpose } from '../engine/crypto/key-derivation.js';
import { FetCode } from '../engine/errors/fet-code.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatasourceError } from './datasource.error.js';

/**
 * A stored secret that cannot be opened: its key version is not configured, or the configured key
 * of that version is not the one it was sealed with. The message names the variable to fix and
 * never any key material.
 */
export class CredentialKeyError extends DatasourceError {
  constructor(
    readonly keyVersion: string,
    readonly reason: 'not_configured' | 'wrong_key',
    variable = `APP_ENC_KEY_${keyVersion}`,
  ) {
    super(
      FetCode.Internal,
      reason === 'not_configured'
        ? `a stored credential is encrypted with key version ${keyVersion}, which is not configured: set ${variable} to the master key of that version`
        : `a stored credential of key version ${keyVersion} does not open: it was altered, or ${variable} is not the key it was encrypted with`,
    );
  }
}

/**
 * Encrypts connection secrets at rest (AES-256-GCM, HKDF `fetcher-credentials-v1`) under the
 * current key version, and opens each stored secret with the keyring entry of the version stored
 * beside it, so rows written before a rotation stay readable until they are re-encrypted.
 *
 * An empty sealed value means "nothing stored" (a cleared password): it is never opened.
 */
@Injectable()
export class CredentialCipher {
  readonly keyVersion: string;
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'encryption'>) {
    this.keyVersion = config.encryption.keyVersion;
    const keys = new Map<string, Buffer>();
    for (const [version, master] of config.encryption.keyring) keys.set(version, deriveKey(master, KeyPurpose.Credentials));
    // The keyring always holds the current key; this only guards a hand-built config.
    keys.set(this.keyVersion, deriveKey(config.encryption.masterKey, KeyPurpose.Credentials));
    this.keys = keys;
  }

  /** Whether secrets of this version can be opened here. */
  canOpen(keyVersion: string): boolean {
    return this.keys.has(keyVersion);
  }

  encrypt(secret: string): string {
    return sealToBase64(this.keys.get(this.keyVersion) as Buffer, secret);
  }

  encryptOptional(secret: string | undefined | null): string | null {
    return secret === undefined || secret === null || secret === '' ? null : this.encrypt(secret);
  }

  decrypt(sealed: string, keyVersion: string): string {
    if (sealed === '') return '';
    const key = this.keys.get(keyVersion);
    if (key === undefined) throw new CredentialKeyError(keyVersion, 'not_configured');
    try {
      return openFromBase64(key, sealed).toString('utf8');
    } catch {
      throw new CredentialKeyError(keyVersion, 'wrong_key', keyVersion === this.keyVersion ? 'APP_ENC_KEY' : undefined);
    }
  }

  decryptOptional(sealed: string | null, keyVersion: string): string | undefined {
    return sealed === null || sealed === '' ? undefined : this.decrypt(sealed, keyVersion);
  }

  /**
   * The same secret sealed under the current version; null and empty stay as they are, so
   * "nothing stored" keeps its meaning across a rotation.
   */
  reseal<T extends string | null>(sealed: T, keyVersion: string): T {
    if (sealed === null || sealed === '') return sealed;
    return this.encrypt(this.decrypt(sealed, keyVersion)) as T;
  }
}
