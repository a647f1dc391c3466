import type { ConnectionOptions } from 'node:tls';
import { findPlaintextRefusal } from '../shared/plaintext-password.js';
import { type SslModeTable, type SslPlan as EngineSslPlan, type SslSettings, sslModeNormalizer, sslPlanOf } from '../shared/tls-options.js';
import { POSTGRES_ENGINE } from './postgres-engine.js';

export const POSTGRES_SSL_MODES = POSTGRES_ENGINE.ssl.modes;
export type PostgresSslMode = (typeof POSTGRES_SSL_MODES)[number];

/** What node-pg gets for `ssl`: false (plain TCP) or node `tls.connect` options. */
export type PgSsl = false | ConnectionOptions;

/**
 * How to connect for one sslmode: a first attempt and, for `allow`/`prefer`, one retry with the
 * other transport when the first fails in the way libpq would fall back on.
 */
export type SslPlan = EngineSslPlan<PostgresSslMode, PgSsl>;

export const normalizeSslMode = sslModeNormalizer('PostgreSQL', POSTGRES_SSL_MODES, 'disable');

/** node-pg's error when the server answers `N` to the SSLRequest. */
const NO_SSL_ON_SERVER = 'The server does not support SSL connections';

const serverHasNoSsl = (error: unknown): boolean => error instanceof Error && error.message === NO_SSL_ON_SERVER;

/** 28000 is how pg_hba.conf rejects a connection (e.g. a `hostssl`-only rule seen over plain TCP). */
const rejectedByHba = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '28000';

/** Over plain TCP the server asked for the password in clear text, and it was not sent. */
const plaintextRefused = (error: unknown): boolean => findPlaintextRefusal(error) !== undefined;

/** Chain checked against `ca` (or the system roots), host name not checked. */
const skipHostname = (): undefined => undefined;

/**
 * libpq sslmode → node-pg, which has no built-in fallback between plain and TLS:
 *
 * - disable: plain TCP.
 * - allow: plain TCP first (libpq's preference); if pg_hba rejects it (SQLSTATE 28000), or the
 *   server asks for a cleartext password that may not travel without TLS, one retry over TLS
 *   without certificate checks — libpq's "try SSL if non-SSL fails", limited to the failures
 *   that SSL can cure so a wrong password is not tried twice.
 * - prefer: TLS without certificate checks first; only if the server says it has no SSL at all
 *   (the `N` answer), one retry over plain TCP. A TLS handshake or certificate failure is not
 *   downgraded, since that would let an active attacker strip TLS by breaking the handshake.
 * - require: TLS, no certificate checks; with a `ca`, the chain is verified against it (libpq
 *   does the same when a root certificate is present).
 * - verify-ca: TLS, chain verified against `ca` (system roots without one), host name not checked.
 * - verify-full: TLS, chain and host name verified.
 *
 * `cert`/`key` (client certificate) are sent whenever TLS is used.
 */
const MODES: SslModeTable<PostgresSslMode, ConnectionOptions, false> = {
  first: {
    disable: 'plain',
    allow: 'plain',
    prefer: 'unverified',
    require: 'unverified',
    'verify-ca': 'chain',
    'verify-full': 'full',
  },
  fallback: {
    allow: { transport: 'unverified', when: (error) => rejectedByHba(error) || plaintextRefused(error) },
    prefer: { transport: 'plain', when: serverHasNoSsl },
  },
  checks: {
    unverified: { rejectUnauthorized: false },
    chain: { rejectUnauthorized: true, checkServerIdentity: skipHostname },
    full: { rejectUnauthorized: true },
  },
  plain: false,
};

export function sslPlan(ssl: SslSettings): SslPlan {
  const mode = normalizeSslMode(ssl.mode);
  return sslPlanOf(mode, ssl, MODES, mode === 'require' && ssl.ca ? 'chain' : undefined);
}
