import { Inject, Injectable } from '@nestjs/common';
import { openFromBase64, sealToBase64 } from '../common/crypto/aes-gcm.js';
import { deriveKey, KeyPurpose } from '../common/crypto/key-derivation.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

/**
 * Encrypts connection secrets at rest (AES-256-GCM, HKDF `fetcher-credentials-v1`), tagging each
 * with the key version so a later rotation can still read older rows.
 */
@Injectable()
export class CredentialCipher {
  private readonly key: Buffer;
  readonly keyVersion: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = deriveKey(config.encryption.masterKey, KeyPurpose.Credentials);
    this.keyVersion = config.encryption.keyVersion;
  }

  encrypt(secret: string): string {
    return sealToBase64(this.key, secret);
  }

  encryptOptional(secret: string | undefined | null): string | null {
    return secret === undefined || secret === null || secret === '' ? null : this.encrypt(secret);
  }

  decrypt(sealed: string, keyVersion: string): string {
    if (keyVersion !== this.keyVersion) {
      throw new Error(`credential was encrypted with key version ${keyVersion}, which is not configured`);
    }
    return openFromBase64(this.key, sealed).toString('utf8');
  }

  decryptOptional(sealed: string | null, keyVersion: string): string | undefined {
    return sealed === null ? undefined : this.decrypt(sealed, keyVersion);
  }
}
