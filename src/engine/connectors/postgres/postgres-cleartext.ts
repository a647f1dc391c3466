import type { TLSSocket } from 'node:tls';
import type pg from 'pg';
import { plaintextPasswordRefused } from '../shared/plaintext-password.js';

/**
 * A config whose password function refuses to answer a server that asked for the password in
 * clear text (AuthenticationCleartextPassword) over a socket without TLS. pg emits that request
 * on `client.connection` and only then calls the password function, so a listener registered
 * before connect() sees it first; MD5 and SCRAM requests are answered as usual.
 */
export function cleartextGuard(config: pg.ClientConfig): { readonly config: pg.ClientConfig; watch(client: pg.Client): void } {
  const password = config.password;
  let client: pg.Client | undefined;
  let cleartextAsked = false;
  return {
    config: {
      ...config,
      password: async () => {
        const encrypted = (client?.connection.stream as Partial<TLSSocket> | undefined)?.encrypted === true;
        if (cleartextAsked && !encrypted) {
          throw plaintextPasswordRefused(
            'the server asked for the password in clear text over a connection without TLS',
            'require, verify-ca or verify-full',
          );
        }
        return typeof password === 'function' ? password() : (password ?? '');
      },
    },
    watch(watched) {
      client = watched;
      watched.connection.on('authenticationCleartextPassword', () => {
        cleartextAsked = true;
      });
    },
  };
}
