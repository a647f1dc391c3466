import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  generateSigningKey,
  hmacTokenWithPublicKey,
  signToken,
  unsecuredToken,
  type SigningKey,
} from '../../../test/helpers/jwks-server.js';
import { JwtVerifier } from './jwt-verifier.js';
import { expectInvalidToken, jwtConfig } from './testing/jwt-expectations.js';

const ISSUER = 'https://issuer.test';

describe('JwtVerifier with a single public key', () => {
  let rsa: SigningKey;
  let ec: SigningKey;
  let otherRsa: SigningKey;
  let verifier: JwtVerifier;

  beforeAll(async () => {
    [rsa, ec, otherRsa] = await Promise.all([generateSigningKey('RS256'), generateSigningKey('ES384'), generateSigningKey('RS256')]);
    verifier = new JwtVerifier(jwtConfig({ publicKeyPem: rsa.publicKeyPem, issuer: ISSUER }));
  });

  it('accepts a token signed by the key, with or without kid', async () => {
    await expect(verifier.verify(await signToken(rsa, { sub: 'pem-user' }))).resolves.toEqual({
      id: 'jwt:https://issuer.test|pem-user',
      method: 'jwt',
      operator: false,
      products: [],
    });
    await expect(verifier.verify(await signToken(rsa, { header: { kid: undefined } }))).resolves.toMatchObject({ method: 'jwt' });
  });

  it('accepts an EC key with its own algorithm', async () => {
    const ecVerifier = new JwtVerifier(jwtConfig({ publicKeyPem: ec.publicKeyPem, issuer: ISSUER }));
    await expect(ecVerifier.verify(await signToken(ec))).resolves.toMatchObject({ method: 'jwt' });
    await expectInvalidToken(ecVerifier.verify(await signToken(otherRsa)), 'token algorithm is not accepted');
  });

  it('accepts an Ed25519 key', async () => {
    const ed = await generateSigningKey('EdDSA');
    const edVerifier = new JwtVerifier(jwtConfig({ publicKeyPem: ed.publicKeyPem, issuer: ISSUER }));
    await expect(edVerifier.verify(await signToken(ed))).resolves.toMatchObject({ method: 'jwt' });
  });

  it('refuses a token signed by any other key', async () => {
    await expectInvalidToken(verifier.verify(await signToken(otherRsa)), 'token signature is invalid');
  });

  it('refuses HS256 keyed with this very PEM, the setting the confusion attack targets', async () => {
    await expectInvalidToken(verifier.verify(hmacTokenWithPublicKey(rsa)), 'token algorithm is not accepted');
    await expectInvalidToken(verifier.verify(unsecuredToken()), 'token algorithm is not accepted');
  });

  it('applies the same claim checks as with a JWKS', async () => {
    await expectInvalidToken(verifier.verify(await signToken(rsa, { expiresIn: -60 })), 'token expired');
    await expectInvalidToken(verifier.verify(await signToken(rsa, { expiresIn: null })), 'token has no expiry');
    await expectInvalidToken(verifier.verify(await signToken(rsa, { aud: 'elsewhere' })), 'token audience is not accepted');
  });

  it('refuses at construction a key type that cannot verify JWTs', () => {
    const { publicKey } = generateKeyPairSync('x25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => new JwtVerifier(jwtConfig({ publicKeyPem: pem, issuer: ISSUER }))).toThrow(/AUTH_JWT_PUBLIC_KEY/);
  });
});
