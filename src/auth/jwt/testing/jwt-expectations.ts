import { expect } from 'vitest';
import type { JwtAuthConfig } from '../../../config/auth.config.js';
import { AuthError } from '../../auth.error.js';

/** A configuration as parseAuthConfig would give it, with the defaults of the environment. */
export function jwtConfig(overrides: Partial<JwtAuthConfig> & Pick<JwtAuthConfig, 'issuer'>): JwtAuthConfig {
  return { audiences: ['fetcher'], productsClaim: 'products', rolesClaim: 'roles', clockToleranceSeconds: 5, ...overrides };
}

/**
 * The refusal a client sees: 401, FET-0010, a Bearer invalid_token challenge and exactly this
 * message, which therefore cannot carry any part of the token.
 */
export async function expectInvalidToken(verification: Promise<unknown>, message: string): Promise<void> {
  const error = await verification.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, 'the token was accepted').toBeInstanceOf(AuthError);
  const refusal = error as AuthError;
  expect(refusal.status).toBe(401);
  expect(refusal.code).toBe('FET-0010');
  expect(refusal.headers?.['WWW-Authenticate']).toBe('Bearer realm="fetcher", error="invalid_token"');
  expect(refusal.message).toBe(message);
}
