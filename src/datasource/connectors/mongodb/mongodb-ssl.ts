import type { MongoClientOptions } from 'mongodb';
import type { ResolvedDatasource } from '../shared/engine-connector.js';

export const MONGODB_SSL_MODES = ['disable', 'false', 'true', 'enable', 'insecure'] as const;
export type MongoSslMode = (typeof MONGODB_SSL_MODES)[number];

export type MongoTlsOptions = Pick<
  MongoClientOptions,
  'tls' | 'ca' | 'cert' | 'key' | 'tlsAllowInvalidCertificates' | 'tlsAllowInvalidHostnames'
>;

export class UnsupportedSslModeError extends Error {
  override readonly name = 'UnsupportedSslModeError';
  readonly code = 'FETCHER_SSL_MODE';
}

export function normalizeSslMode(mode: string | null | undefined): MongoSslMode {
  const m = (mode ?? '').trim().toLowerCase();
  if (m === '') return 'disable';
  if ((MONGODB_SSL_MODES as readonly string[]).includes(m)) return m as MongoSslMode;
  throw new UnsupportedSslModeError(`unsupported MongoDB SSL mode "${m.slice(0, 40)}"`);
}

/**
 * PEM contents go to the driver as Node TLS options (`ca`, `cert`, `key`), never through
 * `tlsCAFile`/`tlsCertificateKeyFile`, which would need them written to disk.
 */
function material(ssl: ResolvedDatasource['ssl']): Pick<MongoTlsOptions, 'ca' | 'cert' | 'key'> {
  if (Boolean(ssl.cert) !== Boolean(ssl.key)) {
    throw new UnsupportedSslModeError('a client certificate needs both cert and key');
  }
  const out: Pick<MongoTlsOptions, 'ca' | 'cert' | 'key'> = {};
  if (ssl.ca) out.ca = ssl.ca;
  if (ssl.cert) out.cert = ssl.cert;
  if (ssl.key) out.key = ssl.key;
  return out;
}

/**
 * The original's modes (mongo-driver URI flags) → MongoClient TLS options:
 *
 * - disable, false (and null/''): no TLS.
 * - true, enable: TLS; the server's chain is verified against `ca` (the system roots without one)
 *   and its host name is checked.
 * - insecure: TLS without any certificate or host name check (the original's `tlsInsecure`).
 *
 * `cert`/`key` (client certificate, for x509-enforcing servers) are sent whenever TLS is used.
 */
export function tlsOptions(ssl: ResolvedDatasource['ssl']): MongoTlsOptions {
  const mode = normalizeSslMode(ssl.mode);
  switch (mode) {
    case 'disable':
    case 'false':
      return { tls: false };
    case 'true':
    case 'enable':
      return { tls: true, ...material(ssl), tlsAllowInvalidCertificates: false, tlsAllowInvalidHostnames: false };
    case 'insecure':
      return { tls: true, ...material(ssl), tlsAllowInvalidCertificates: true, tlsAllowInvalidHostnames: true };
  }
}
