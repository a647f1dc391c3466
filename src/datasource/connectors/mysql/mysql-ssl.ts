import type { SslOptions } from 'mysql2';
import type { ResolvedDatasource } from '../shared/engine-connector.js';

export const MYSQL_SSL_MODES = ['false', 'true', 'skip-verify', 'preferred'] as const;
export type MySqlSslMode = (typeof MYSQL_SSL_MODES)[number];

/** What mysql2 gets for `ssl`: undefined (plain TCP) or its TLS options. */
export type MySqlSsl = SslOptions | undefined;

/**
 * How to connect for one mode: a first attempt and, for `preferred`, one retry over plain TCP
 * when the first attempt fails because the server offers no TLS at all.
 */
export interface SslPlan {
  readonly mode: MySqlSslMode;
  readonly first: MySqlSsl;
  readonly fallback?: { readonly ssl: MySqlSsl; readonly when: (error: unknown) => boolean };
}

export class UnsupportedSslModeError extends Error {
  override readonly name = 'UnsupportedSslModeError';
  readonly code = 'FETCHER_SSL_MODE';
}

/** mysql2's error when the server's greeting does not advertise SSL: no handshake was tried. */
const serverHasNoSsl = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'HANDSHAKE_NO_SSL_SUPPORT';

function material(ssl: ResolvedDatasource['ssl']): SslOptions {
  const out: SslOptions = {};
  if (ssl.ca) out.ca = ssl.ca;
  if (ssl.cert) out.cert = ssl.cert;
  if (ssl.key) out.key = ssl.key;
  return out;
}

export function normalizeSslMode(mode: string | null | undefined): MySqlSslMode {
  const m = (mode ?? '').trim().toLowerCase();
  if (m === '') return 'false';
  if ((MYSQL_SSL_MODES as readonly string[]).includes(m)) return m as MySqlSslMode;
  throw new UnsupportedSslModeError(`unsupported MySQL SSL mode "${m.slice(0, 40)}"`);
}

/**
 * The original's go-sql-driver `tls` values → mysql2 `ssl` options:
 *
 * - false (and null/''): plain TCP.
 * - true: TLS; the chain is verified against `ca` (the system roots without one) and the host
 *   name is checked, as go-sql-driver's `tls=true` does.
 * - skip-verify: TLS without any certificate check.
 * - preferred: as go-sql-driver, TLS without certificate checks when the server offers it; only
 *   when the server's greeting has no SSL capability at all (mysql2 reports
 *   HANDSHAKE_NO_SSL_SUPPORT before any TLS byte is sent) one retry over plain TCP. A failed TLS
 *   handshake is never downgraded: an active attacker could otherwise strip TLS by breaking it.
 *
 * `cert`/`key` (client certificate) are sent whenever TLS is used.
 */
export function sslPlan(ssl: ResolvedDatasource['ssl']): SslPlan {
  const mode = normalizeSslMode(ssl.mode);
  const pem = material(ssl);
  switch (mode) {
    case 'false':
      return { mode, first: undefined };
    case 'true':
      return { mode, first: { ...pem, rejectUnauthorized: true, verifyIdentity: true } };
    case 'skip-verify':
      return { mode, first: { ...pem, rejectUnauthorized: false, verifyIdentity: false } };
    case 'preferred':
      return {
        mode,
        first: { ...pem, rejectUnauthorized: false, verifyIdentity: false },
        fallback: { ssl: undefined, when: serverHasNoSsl },
      };
  }
}
