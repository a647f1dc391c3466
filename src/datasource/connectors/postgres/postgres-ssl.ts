import type { ConnectionOptions } from 'node:tls';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { findPlaintextRefusal } from '../shared/plaintext-password.js';

export const POSTGRES_SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type PostgresSslMode = (typeof POSTGRES_SSL_MODES)[number];

/** What node-pg gets for `ssl`: false (plain TCP) or node `tls.connect` options. */
export type PgSsl = false | ConnectionOptions;

/**
 * How to connect for one sslmode: a first attempt and, for `allow`/`prefer`, one retry with the
 * other transport when the first fails in the way libpq would fall back on.
 */
export interface SslPlan {
  readonly mode: PostgresSslMode;
  readonly first: PgSsl;
  readonly fallback?: { readonly ssl: PgSsl; readonly when: (error: unknown) => boolean };
}

export class UnsupportedSslModeError extends Error {
  override readonly name = 'UnsupportedSslModeError';
  readonly code = 'FETCHER_SSL_MODE';
}

/** node-pg's error when the server answers `N` to the SSLRequest. */
const NO_SSL_ON_SERVER = 'The server does not support SSL connections';

const serverHasNoSsl = (error: unknown): boolean => error instanceof Error && error.message === NO_SSL_ON_SERVER;

/** 28000 is how pg_hba.conf rejects a connection (e.g. a `hostssl`-only rule seen over plain TCP). */
const rejectedByHba = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '28000';

function material(ssl: ResolvedDatasource['ssl']): ConnectionOptions {
  const out: ConnectionOptions = {};
  if (ssl.ca) out.ca = ssl.ca;
  if (ssl.cert) out.cert = ssl.cert;
  if (ssl.key) out.key = ssl.key;
  return out;
}

/** Over plain TCP the server asked for the password in clear text, and it was not sent. */
const plaintextRefused = (error: unknown): boolean => findPlaintextRefusal(error) !== undefined;

/** Chain checked against `ca` (or the system roots), host name not checked. */
const skipHostname = (): undefined => undefined;

export function normalizeSslMode(mode: string | null | undefined): PostgresSslMode {
  const m = (mode ?? '').trim().toLowerCase();
  if (m === '') return 'disable';
  if ((POSTGRES_SSL_MODES as readonly string[]).includes(m)) return m as PostgresSslMode;
  throw new UnsupportedSslModeError(`unsupported PostgreSQL SSL mode "${m.slice(0, 40)}"`);
}

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
export function sslPlan(ssl: ResolvedDatasource['ssl']): SslPlan {
  const mode = normalizeSslMode(ssl.mode);
  const pem = material(ssl);
  const unverified: ConnectionOptions = { ...pem, rejectUnauthorized: false };
  switch (mode) {
    case 'disable':
      return { mode, first: false };
    case 'allow':
      return { mode, first: false, fallback: { ssl: unverified, when: (error) => rejectedByHba(error) || plaintextRefused(error) } };
    case 'prefer':
      return { mode, first: unverified, fallback: { ssl: false, when: serverHasNoSsl } };
    case 'require':
      return {
        mode,
        first: pem.ca === undefined ? unverified : { ...pem, rejectUnauthorized: true, checkServerIdentity: skipHostname },
      };
    case 'verify-ca':
      return { mode, first: { ...pem, rejectUnauthorized: true, checkServerIdentity: skipHostname } };
    case 'verify-full':
      return { mode, first: { ...pem, rejectUnauthorized: true } };
  }
}
