import { describe, expect, it } from 'vitest';
import { actingProduct, productScope } from './product-scope.js';
import { ANONYMOUS_OPERATOR, type Principal } from './principal.js';

const product = (...products: string[]): Principal => ({ id: 'p', method: 'apikey', operator: false, products });

describe('actingProduct', () => {
  it('takes the only product of a principal when X-Product-Name is omitted', () => {
    expect(actingProduct(product('alpha'), undefined)).toBe('alpha');
  });

  it('accepts its own product in any case, and refuses another with 403', () => {
    expect(actingProduct(product('alpha'), ' Alpha ')).toBe('alpha');
    expect(() => actingProduct(product('alpha'), 'beta')).toThrow(expect.objectContaining({ code: 'FET-0011', status: 403 }));
  });

  it('needs the header for an operator and for a principal of several products (400 FET-0403)', () => {
    expect(() => actingProduct(ANONYMOUS_OPERATOR, undefined)).toThrow(expect.objectContaining({ code: 'FET-0403' }));
    expect(() => actingProduct(product('alpha', 'beta'), undefined)).toThrow(
      expect.objectContaining({ code: 'FET-0403', message: expect.stringContaining('(alpha, beta)') }),
    );
    expect(actingProduct(ANONYMOUS_OPERATOR, 'anyone')).toBe('anyone');
  });

  it('refuses a principal of no product, and an invalid header as before', () => {
    expect(() => actingProduct(product(), undefined)).toThrow(expect.objectContaining({ code: 'FET-0011' }));
    expect(() => actingProduct(product('alpha'), 'no spaces')).toThrow(expect.objectContaining({ code: 'FET-0403' }));
  });
});

describe('productScope', () => {
  it('is every product for an operator, its own products for a product principal', () => {
    expect(productScope(ANONYMOUS_OPERATOR, undefined)).toEqual({ products: 'all', named: false });
    expect(productScope(product('alpha', 'beta'), undefined)).toEqual({ products: ['alpha', 'beta'], named: false });
  });

  it('narrows to the named product, which must be one of its own', () => {
    expect(productScope(product('alpha', 'beta'), 'BETA')).toEqual({ products: ['beta'], named: true });
    expect(() => productScope(product('alpha'), 'beta')).toThrow(expect.objectContaining({ status: 403 }));
  });
});
