import type { Principal } from './principal.js';

/** Turns a bearer credential into a principal, or throws AuthError (401) / ServiceUnavailableError (503). */
export interface Authenticator {
  authenticate(credential: string): Promise<Principal>;
}

export const AUTHENTICATOR = Symbol('AUTHENTICATOR');
