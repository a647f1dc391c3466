import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateSigningKey,
  signToken,
  startJwksServer,
  tamperPayload,
  tamperSignature,
  type JwksServer,
  type SigningKey,
} from '../../../test/helpers/jwks-server.js';
import { JwtVerifier } from './jwt-verifier.js';
import { expectInvalidToken, jwtConfig } from './testing/jwt-expectations.js';

describe('JwtVerifier against a JWKS', () => {
  let server: JwksServer;
  let verifier: JwtVerifier;
  let stray: SigningKey;

  beforeAll(async () => {
    server = await startJwksServer();
    verifier = new JwtVerifier(jwtConfig({ jwksUrl: server.url, issuer: server.issuer, audiences: ['fetcher', 'reports'] }));
    stray = await generateSigningKey('RS256', 'rsa-1');
  });
  afterAll(() => server.close());

  it('accepts an RSA-signed token and names the caller by issuer and subject', async () => {
    const principal = await verifier.verify(await server.sign({ kid: 'rsa-1', sub: 'svc-billing' }));
    expect(principal).toEqual({ id: 'jwt:https://issuer.test|svc-billing', method: 'jwt', operator: false, products: [] });
  });

  it('accepts an EC-signed token', async () => {
    const principal = await verifier.verify(await server.sign({ kid: 'ec-1', sub: 'svc-ec' }));
    expect(principal.id).toBe('jwt:https://issuer.test|svc-ec');
  });

  it.each(['PS256', 'ES384', 'EdDSA'] as const)('accepts a %s key added to the set', async (alg) => {
    const key = await server.addKey(alg);
    const fresh = new JwtVerifier(jwtConfig({ jwksUrl: server.url, issuer: server.issuer }));
    await expect(fresh.verify(await server.sign({ kid: key.kid }))).resolves.toMatchObject({ method: 'jwt' });
    server.removeKey(key.kid);
  });

  it('accepts any configured audience, also inside an audience array', async () => {
    await expect(verifier.verify(await server.sign({ aud: 'reports' }))).resolves.toMatchObject({ method: 'jwt' });
    await expect(verifier.verify(await server.sign({ aud: ['someone-else', 'fetcher'] }))).resolves.toMatchObject({ method: 'jwt' });
  });

  it('refuses an expired token, but forgives expiry within the clock tolerance', async () => {
    await expectInvalidToken(verifier.verify(await server.sign({ expiresIn: -60 })), 'token expired');
    await expect(verifier.verify(await server.sign({ expiresIn: -2 }))).resolves.toMatchObject({ method: 'jwt' });
  });

  it('refuses a token that is not valid yet, beyond the clock tolerance', async () => {
    await expectInvalidToken(verifier.verify(await server.sign({ notBefore: 60 })), 'token not yet valid');
    await expect(verifier.verify(await server.sign({ notBefore: 2 }))).resolves.toMatchObject({ method: 'jwt' });
  });

  it('checks expiry against the injected clock', async () => {
    const token = await server.sign({ expiresIn: 300 });
    const later = new JwtVerifier(jwtConfig({ jwksUrl: server.url, issuer: server.issuer }), {
      now: () => new Date(Date.now() + 3_600_000),
    });
    await expectInvalidToken(later.verify(token), 'token expired');
  });

  it('refuses a token for another audience, or for none', async () => {
    await expectInvalidToken(verifier.verify(await server.sign({ aud: 'another-api' })), 'token audience is not accepted');
    await expectInvalidToken(verifier.verify(await server.sign({ aud: null })), 'token audience is not accepted');
  });

  it('refuses a token from another issuer, or from none', async () => {
    await expectInvalidToken(verifier.verify(await server.sign({ iss: 'https://evil.test' })), 'token issuer is not accepted');
    await expectInvalidToken(verifier.verify(await server.sign({ iss: null })), 'token issuer is not accepted');
  });

  it('refuses an unsigned (alg none) token', async () => {
    await expectInvalidToken(
      verifier.verify(server.unsecuredToken({ claims: { roles: ['fetcher:admin'] } })),
      'token algorithm is not accepted',
    );
  });

  it('refuses HS256 keyed with the public key, a token a naive verifier would accept', async () => {
    const forged = server.hmacTokenWithPublicKey({ kid: 'rsa-1', claims: { roles: ['fetcher:admin'] } });
    // The forgery is genuine: an HMAC check with the PEM as secret passes.
    await expect(jwtVerify(forged, new TextEncoder().encode(server.key('rsa-1').publicKeyPem))).resolves.toBeDefined();
    await expectInvalidToken(verifier.verify(forged), 'token algorithm is not accepted');
  });

  it('refuses a token whose claims were changed after signing', async () => {
    const token = await server.sign({ sub: 'svc-reader' });
    await expect(verifier.verify(token)).resolves.toMatchObject({ id: 'jwt:https://issuer.test|svc-reader' });
    await expectInvalidToken(verifier.verify(tamperPayload(token, { roles: ['fetcher:admin'] })), 'token signature is invalid');
    await expectInvalidToken(verifier.verify(tamperSignature(token)), 'token signature is invalid');
  });

  it('refuses a token signed by another key under a published kid', async () => {
    await expectInvalidToken(verifier.verify(await signToken(stray, { iss: server.issuer })), 'token signature is invalid');
  });

  it('refuses a token that never expires', async () => {
    await expectInvalidToken(verifier.verify(await server.sign({ expiresIn: null })), 'token has no expiry');
    await expectInvalidToken(verifier.verify(await server.sign({ claims: { exp: 'tomorrow' } })), 'malformed token');
  });

  it('refuses a token without a subject', async () => {
    await expectInvalidToken(verifier.verify(await server.sign({ sub: null })), 'token has no subject');
    await expectInvalidToken(verifier.verify(await server.sign({ sub: '' })), 'token has no subject');
  });

  it('refuses a token naming a key the issuer does not publish', async () => {
    const key = await generateSigningKey('ES256', 'never-published');
    await expectInvalidToken(verifier.verify(await signToken(key, { iss: server.issuer })), 'token names an unknown key');
  });

  it('ignores a key embedded in the token header', async () => {
    const token = await signToken(stray, { iss: server.issuer, header: { kid: 'attacker', jwk: stray.publicJwk } });
    await expectInvalidToken(verifier.verify(token), 'token names an unknown key');
  });

  it.each(['', 'not-a-jwt', 'a.b.c', 'e30.e30', 'e30.e30.e30.e30.e30'])('refuses the malformed token %j', async (token) => {
    await expectInvalidToken(verifier.verify(token), 'malformed token');
  });
});
