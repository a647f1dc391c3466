import { createCipheriv, createHmac, randomBytes, type CipherGCM, type Hmac } from 'node:crypto';
import { GCM_NONCE_BYTES } from '../crypto/aes-gcm.js';
import { Base64StreamEncoder } from './base64-stream.js';

/**
 * What a result's plaintext becomes on its way to the upload: as it is, or sealed. The writer
 * (result-sealer.ts) gathers the plaintext, checks its size and hashes it; an encoding turns each
 * piece into the bytes to store.
 */
export interface ResultEncoding {
  /**
   * Takes the next plaintext and returns the bytes to upload now, or undefined while they gather.
   * The bytes returned may be `plain` itself or a buffer the encoding reuses: the upload is done
   * with them once its write resolves.
   */
  push(plain: Buffer): Buffer | undefined;
  /** The last bytes to store, `plain` being the last plaintext. */
  end(plain: Buffer): Buffer;
  /** HMAC-SHA256 of the plaintext, lowercase hex, once `end` ran; undefined for an unsigned encoding. */
  readonly hmac: string | undefined;
}

/** The plaintext stored as it is (`fetcher extract` without --seal, a library caller's own sink). */
export class PlainEncoding implements ResultEncoding {
  readonly hmac = undefined;

  push(plain: Buffer): Buffer {
    return plain;
  }

  end(plain: Buffer): Buffer {
    return plain;
  }
}

export interface SealingKeys {
  /** HKDF key `fetcher-external-hmac-v1`. */
  readonly hmacKey: Buffer;
  /** HKDF key `fetcher-storage-encryption-v1`. */
  readonly encryptionKey: Buffer;
}

/**
 * base64(nonce ‖ AES-256-GCM(plaintext) ‖ tag), signed with HMAC-SHA256 on the way: the object
 * the service stores (docs/value-mapping.md, "The stored object"). Encoded text is handed on once
 * `flushBytes` of it gathered, so a small piece (the comma between two batches) costs no upload write.
 */
export class SealedEncoding implements ResultEncoding {
  private readonly mac: Hmac;
  private readonly cipher: CipherGCM;
  private readonly encoder: Base64StreamEncoder;
  private digest: string | undefined;

  constructor(
    keys: SealingKeys,
    private readonly flushBytes: number,
  ) {
    this.mac = createHmac('sha256', keys.hmacKey);
    const nonce = randomBytes(GCM_NONCE_BYTES);
    this.cipher = createCipheriv('aes-256-gcm', keys.encryptionKey, nonce);
    this.encoder = new Base64StreamEncoder(nonce);
  }

  get hmac(): string | undefined {
    return this.digest;
  }

  push(plain: Buffer): Buffer | undefined {
    this.mac.update(plain);
    this.encoder.write(this.cipher.update(plain));
    // The encoder reuses its output buffer: the upload is done with it once its write resolves.
    return this.encoder.buffered >= this.flushBytes ? this.encoder.take() : undefined;
  }

  end(plain: Buffer): Buffer {
    this.mac.update(plain);
    this.digest = this.mac.digest('hex');
    return this.encoder.end(Buffer.concat([this.cipher.update(plain), this.cipher.final(), this.cipher.getAuthTag()]));
  }
}
