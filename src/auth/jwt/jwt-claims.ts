import type { JWTPayload } from 'jose';
import { AuthError } from '../auth.error.js';

/** The role that makes a token's caller an operator. */
export const OPERATOR_ROLE = 'fetcher:admin';

const PRODUCT_NAME = /^[a-z0-9_-]{1,100}$/;

/**
 * The value of a configurable claim. The literal name wins, because collision-resistant claim
 * names are URLs full of dots; only when it is absent is the name read as a path into nested
 * objects, the way Keycloak nests `realm_access.roles`. Only own properties are followed, so a
 * name such as `__proto__.x` reaches nothing the token did not carry.
 */
export function readClaim(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let current: unknown = payload;
  for (const segment of name.split('.')) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/**
 * Products a token acts for. A malformed claim refuses the token rather than being ignored: a
 * caller that silently lost its products would see 403s with no hint that its token is the cause,
 * and a half-read claim could widen or narrow access in ways nobody asked for.
 */
export function readProducts(payload: JWTPayload, claimName: string): string[] {
  const value = readClaim(payload, claimName);
  if (value === undefined || value === null) return [];
  const entries = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(entries)) throw malformed('products');
  const products = new Set<string>();
  for (const entry of entries) {
    if (typeof entry !== 'string') throw malformed('products');
    const product = entry.trim().toLowerCase();
    if (!PRODUCT_NAME.test(product)) throw malformed('products');
    products.add(product);
  }
  return [...products];
}

/** True when the roles claim, a space-separated string or an array, holds {@link OPERATOR_ROLE}. */
export function hasOperatorRole(payload: JWTPayload, claimName: string): boolean {
  const value = readClaim(payload, claimName);
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.split(/\s+/).includes(OPERATOR_ROLE);
  if (!Array.isArray(value) || value.some((role) => typeof role !== 'string')) throw malformed('roles');
  return value.some((role: string) => role.trim() === OPERATOR_ROLE);
}

function malformed(what: 'products' | 'roles'): AuthError {
  return AuthError.unauthenticated(`token ${what} claim is malformed`, true, 'claims');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
