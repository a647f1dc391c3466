import { createPublicKey } from 'node:crypto';
import type { EnvironmentVariables } from './environment.dto.js';

/** Operator keys shorter than this are refused at boot: they would be guessable. */
export const MIN_ADMIN_KEY_LENGTH = 24;

export interface JwtAuthConfig {
  /** JWKS endpoint; keys are cached and fetched again when a token names an unknown `kid`. */
  readonly jwksUrl?: string;
  /** A single PEM (SPKI) public key, instead of a JWKS. */
  readonly publicKeyPem?: string;
  readonly issuer: string;
  readonly audiences: readonly string[];
  /** Claim holding the products a token acts for (a string or an array of strings). */
  readonly productsClaim: string;
  /** Claim holding the roles; `fetcher:admin` makes the caller an operator. */
  readonly rolesClaim: string;
  readonly clockToleranceSeconds: number;
}

export type AuthConfig =
  | { readonly mode: 'none' }
  | { readonly mode: 'apikey'; readonly adminKeys: readonly string[] }
  | { readonly mode: 'jwt'; readonly jwt: JwtAuthConfig };

/**
 * The authentication section of the configuration. Returns the problems (each naming its
 * variable) instead of throwing, so the caller reports them with the rest.
 */
export function parseAuthConfig(vars: EnvironmentVariables, production: boolean): { auth?: AuthConfig; problems: string[] } {
  const problems: string[] = [];
  const mode = vars.AUTH_MODE;
  if (mode === undefined && production) {
    problems.push('AUTH_MODE: is required when NODE_ENV=production (apikey or jwt; none only if every caller may act as the operator)');
    return { problems };
  }
  if (mode === undefined || mode === 'none') return { auth: { mode: 'none' }, problems };

  if (mode === 'apikey') {
    const adminKeys = splitList(vars.AUTH_ADMIN_KEYS);
    if (adminKeys.length === 0) problems.push('AUTH_ADMIN_KEYS: is required when AUTH_MODE=apikey (comma-separated operator keys)');
    if (adminKeys.some((key) => key.length < MIN_ADMIN_KEY_LENGTH)) {
      problems.push(`AUTH_ADMIN_KEYS: every key must be at least ${MIN_ADMIN_KEY_LENGTH} characters (openssl rand -base64 32)`);
    }
    return { auth: { mode, adminKeys }, problems };
  }

  const jwksUrl = vars.AUTH_JWKS_URL;
  const publicKeyPem = vars.AUTH_JWT_PUBLIC_KEY?.replace(/\\n/g, '\n');
  if ((jwksUrl === undefined) === (publicKeyPem === undefined)) {
    problems.push('AUTH_JWKS_URL: set exactly one of AUTH_JWKS_URL and AUTH_JWT_PUBLIC_KEY when AUTH_MODE=jwt');
  }
  if (jwksUrl !== undefined && production && !jwksUrl.startsWith('https://')) {
    problems.push('AUTH_JWKS_URL: must be an https:// URL when NODE_ENV=production');
  }
  if (publicKeyPem !== undefined && !isPublicKey(publicKeyPem)) {
    problems.push('AUTH_JWT_PUBLIC_KEY: must be a PEM public key (-----BEGIN PUBLIC KEY-----)');
  }
  if (!vars.AUTH_JWT_ISSUER) problems.push('AUTH_JWT_ISSUER: is required when AUTH_MODE=jwt');
  const audiences = splitList(vars.AUTH_JWT_AUDIENCE);
  if (audiences.length === 0) problems.push('AUTH_JWT_AUDIENCE: is required when AUTH_MODE=jwt');
  return {
    auth: {
      mode: 'jwt',
      jwt: {
        jwksUrl,
        publicKeyPem,
        issuer: vars.AUTH_JWT_ISSUER ?? '',
        audiences,
        productsClaim: vars.AUTH_JWT_PRODUCTS_CLAIM ?? 'products',
        rolesClaim: vars.AUTH_JWT_ROLES_CLAIM ?? 'roles',
        clockToleranceSeconds: vars.AUTH_JWT_CLOCK_TOLERANCE_SECONDS ?? 5,
      },
    },
    problems,
  };
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function isPublicKey(pem: string): boolean {
  try {
    return createPublicKey(pem).type === 'public';
  } catch {
    return false;
  }
}
