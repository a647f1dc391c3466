/** How a caller proved who it is. */
export type AuthMethod = 'none' | 'apikey' | 'jwt';

/**
 * Who is calling, as the guard established it; never taken from what the caller writes in a body
 * or header. An operator acts for every product; a product principal only for `products`.
 */
export interface Principal {
  /** Stable id for rate limits and logs: `apikey:<id>`, `admin-key:<n>`, `jwt:<iss>|<sub>`, `anonymous`. */
  readonly id: string;
  readonly method: AuthMethod;
  readonly operator: boolean;
  /** Lower-cased product names; empty for an operator unless its token also names some. */
  readonly products: readonly string[];
}

/** The caller of AUTH_MODE=none: every request acts as the operator. */
export const ANONYMOUS_OPERATOR: Principal = Object.freeze({
  id: 'anonymous',
  method: 'none',
  operator: true,
  products: Object.freeze([]),
});

/** True when `principal` may act for `product` (compared lower-cased). */
export function actsFor(principal: Principal, product: string | null | undefined): boolean {
  if (principal.operator) return true;
  if (product === null || product === undefined) return false;
  return principal.products.includes(product.toLowerCase());
}

/** The products a principal may see: 'all' for an operator. */
export function productsOf(principal: Principal): readonly string[] | 'all' {
  return principal.operator ? 'all' : principal.products;
}
