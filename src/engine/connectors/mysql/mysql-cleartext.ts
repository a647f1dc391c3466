import type { AuthPlugin } from 'mysql2';
import { plaintextPasswordRefused } from '../shared/plaintext-password.js';

/**
 * mysql2's `mysql_clear_password` (LDAP, PAM and other server-side plugins): it sends the
 * password as it is. Ours answers only over TLS, or anywhere when plaintext passwords are
 * allowed; otherwise the login fails with PlaintextPasswordRefusedError and nothing is sent.
 * (mysql2 refuses the plugin outright unless one is given.) The native and caching_sha2 plugins
 * send a hash or, without TLS, the password encrypted with the server's RSA key: never clear text.
 */
export function clearPasswordPlugin(password: string, refuseWithoutTls: boolean): AuthPlugin {
  return ({ connection }) =>
    async () => {
      const stream = (connection as unknown as { stream?: { encrypted?: boolean } }).stream;
      if (refuseWithoutTls && stream?.encrypted !== true) {
        throw plaintextPasswordRefused(
          'the server asked for the password in clear text (mysql_clear_password) over a connection without TLS',
          'true or skip-verify',
        );
      }
      return Buffer.from(`${password}\0`, 'utf8');
    };
}
