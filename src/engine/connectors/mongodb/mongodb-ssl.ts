import type { MongoClientOptions } from 'mongodb';
import {
  type SslSettings,
  sslModeNormalizer,
  type TlsChecks,
  type Transport,
  transportOptions,
  UnsupportedSslModeError,
} from '../shared/tls-options.js';
import { MONGODB_ENGINE } from './mongodb-engine.js';

export const MONGODB_SSL_MODES = MONGODB_ENGINE.ssl.modes;
export type MongoSslMode = (typeof MONGODB_SSL_MODES)[number];

export type MongoTlsOptions = Pick<
  MongoClientOptions,
  'tls' | 'ca' | 'cert' | 'key' | 'tlsAllowInvalidCertificates' | 'tlsAllowInvalidHostnames'
>;

export const normalizeSslMode = sslModeNormalizer('MongoDB', MONGODB_SSL_MODES, 'disable');

/**
 * The original's modes (mongo-driver URI flags, docs/compatibility.md#tls-modes) → MongoClient TLS options:
 *
 * - disable, false (and null/''): no TLS.
 * - true, enable: TLS; the server's chain is verified against `ca` (the system roots without one)
 *   and its host name is checked.
 * - insecure: TLS without any certificate or host name check (the original's `tlsInsecure`:
 *   docs/compatibility.md#tls-modes).
 *
 * `cert`/`key` (client certificate, for x509-enforcing servers) are sent whenever TLS is used.
 */
const TRANSPORTS: Readonly<Record<MongoSslMode, Transport>> = {
  disable: 'plain',
  false: 'plain',
  true: 'full',
  enable: 'full',
  insecure: 'unverified',
};

const CHECKS: TlsChecks<MongoTlsOptions> = {
  unverified: { tls: true, tlsAllowInvalidCertificates: true, tlsAllowInvalidHostnames: true },
  chain: { tls: true, tlsAllowInvalidCertificates: false, tlsAllowInvalidHostnames: true },
  full: { tls: true, tlsAllowInvalidCertificates: false, tlsAllowInvalidHostnames: false },
};

/**
 * PEM contents go to the driver as Node TLS options (`ca`, `cert`, `key`), never through
 * `tlsCAFile`/`tlsCertificateKeyFile`, which would need them written to disk.
 */
export function tlsOptions(ssl: SslSettings): MongoTlsOptions {
  const transport = TRANSPORTS[normalizeSslMode(ssl.mode)];
  if (transport !== 'plain' && Boolean(ssl.cert) !== Boolean(ssl.key)) {
    throw new UnsupportedSslModeError('a client certificate needs both cert and key');
  }
  return transportOptions(transport, ssl, CHECKS, { tls: false });
}
