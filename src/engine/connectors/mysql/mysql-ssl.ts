import type { SslOptions } from 'mysql2';
import { type SslModeTable, type SslPlan as EngineSslPlan, type SslSettings, sslModeNormalizer, sslPlanOf } from '../shared/tls-options.js';
import { MYSQL_ENGINE } from './mysql-engine.js';

export const MYSQL_SSL_MODES = MYSQL_ENGINE.ssl.modes;
export type MySqlSslMode = (typeof MYSQL_SSL_MODES)[number];

/** What mysql2 gets for `ssl`: undefined (plain TCP) or its TLS options. */
export type MySqlSsl = SslOptions | undefined;

/**
 * How to connect for one mode: a first attempt and, for `preferred`, one retry over plain TCP
 * when the first attempt fails because the server offers no TLS at all.
 */
export type SslPlan = EngineSslPlan<MySqlSslMode, MySqlSsl>;

export const normalizeSslMode = sslModeNormalizer('MySQL', MYSQL_SSL_MODES, 'false');

/** mysql2's error when the server's greeting does not advertise SSL: no handshake was tried. */
const serverHasNoSsl = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'HANDSHAKE_NO_SSL_SUPPORT';

/**
 * The original's go-sql-driver `tls` values (docs/compatibility.md#tls-modes) → mysql2 `ssl` options:
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
const MODES: SslModeTable<MySqlSslMode, SslOptions, undefined> = {
  first: { false: 'plain', true: 'full', 'skip-verify': 'unverified', preferred: 'unverified' },
  fallback: { preferred: { transport: 'plain', when: serverHasNoSsl } },
  checks: {
    unverified: { rejectUnauthorized: false, verifyIdentity: false },
    chain: { rejectUnauthorized: true, verifyIdentity: false },
    full: { rejectUnauthorized: true, verifyIdentity: true },
  },
  plain: undefined,
};

export function sslPlan(ssl: SslSettings): SslPlan {
  return sslPlanOf(normalizeSslMode(ssl.mode), ssl, MODES);
}
