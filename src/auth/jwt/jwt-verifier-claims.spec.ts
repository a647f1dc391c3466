import { beforeAll, describe, expect, it } from 'vitest';
import type { JwtAuthConfig } from '../../config/auth.config.js';
import { generateSigningKey, signToken, type SigningKey } from '../../../test/helpers/jwks-server.js';
import { JwtVerifier } from './jwt-verifier.js';
import { expectInvalidToken, jwtConfig } from './testing/jwt-expectations.js';

describe('JwtVerifier reading products and roles', () => {
  let key: SigningKey;
  const verify = async (claims: Record<string, unknown>, config: Partial<JwtAuthConfig> = {}) =>
    new JwtVerifier(jwtConfig({ publicKeyPem: key.publicKeyPem, issuer: 'https://issuer.test', ...config })).verify(
      await signToken(key, { claims }),
    );

  beforeAll(async () => {
    key = await generateSigningKey('ES256');
  });

  describe('products', () => {
    it('takes a single string, trimmed and lower-cased', async () => {
      expect((await verify({ products: '  Billing ' })).products).toEqual(['billing']);
    });

    it('takes an array of strings, without duplicates', async () => {
      expect((await verify({ products: ['Billing', 'crm_eu', 'billing', 'crm-us'] })).products).toEqual(['billing', 'crm_eu', 'crm-us']);
    });

    it('gives none when the claim is absent', async () => {
      expect((await verify({})).products).toEqual([]);
    });

    it('follows a dotted path into nested objects', async () => {
      const principal = await verify({ fetcher: { access: { products: ['crm'] } } }, { productsClaim: 'fetcher.access.products' });
      expect(principal.products).toEqual(['crm']);
    });

    it('reads a URL-style claim name literally', async () => {
      const principal = await verify({ 'https://example.com/products': ['sales'] }, { productsClaim: 'https://example.com/products' });
      expect(principal.products).toEqual(['sales']);
    });

    it('prefers the literal name to the path when a token has both', async () => {
      const claims = { 'fetcher.products': ['literal'], fetcher: { products: ['nested'] } };
      expect((await verify(claims, { productsClaim: 'fetcher.products' })).products).toEqual(['literal']);
    });

    it('does not walk into inherited properties', async () => {
      expect((await verify({}, { productsClaim: 'constructor.name' })).products).toEqual([]);
    });

    it.each([
      ['a name with a space', ['billing', 'bad product']],
      ['an empty name', ''],
      ['a name of 101 characters', 'x'.repeat(101)],
      ['a number', 42],
      ['an array with a number', ['billing', 7]],
      ['an object', { billing: true }],
      ['a non-ASCII name', ['bïlling']],
    ])('refuses the token when the claim is %s', async (_label, products) => {
      await expectInvalidToken(verify({ products }), 'token products claim is malformed');
    });

    it('accepts a name of exactly 100 characters', async () => {
      expect((await verify({ products: 'x'.repeat(100) })).products).toEqual(['x'.repeat(100)]);
    });
  });

  describe('roles', () => {
    it('makes an operator of a token whose roles include fetcher:admin', async () => {
      const principal = await verify({ roles: ['reader', 'fetcher:admin'] });
      expect(principal.operator).toBe(true);
    });

    it('does not for other roles, or none', async () => {
      expect((await verify({ roles: ['reader', 'fetcher:administrator', 'FETCHER:ADMIN'] })).operator).toBe(false);
      expect((await verify({})).operator).toBe(false);
    });

    it('reads a space-separated string', async () => {
      expect((await verify({ roles: 'openid fetcher:admin profile' })).operator).toBe(true);
      expect((await verify({ roles: 'openid fetcher:admins' })).operator).toBe(false);
    });

    it('reads the Keycloak nesting realm_access.roles', async () => {
      const principal = await verify({ realm_access: { roles: ['fetcher:admin'] } }, { rolesClaim: 'realm_access.roles' });
      expect(principal.operator).toBe(true);
    });

    it('keeps the products of an operator token', async () => {
      expect(await verify({ roles: ['fetcher:admin'], products: ['crm'] })).toMatchObject({ operator: true, products: ['crm'] });
    });

    it('refuses the token when the claim is neither a string nor an array of strings', async () => {
      await expectInvalidToken(verify({ roles: { 'fetcher:admin': true } }), 'token roles claim is malformed');
      await expectInvalidToken(verify({ roles: ['fetcher:admin', 1] }), 'token roles claim is malformed');
    });
  });
});
