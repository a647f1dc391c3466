import type { SecureContextOptions } from 'node:tls';
import { pemMaterial, type SslSettings, sslModeNormalizer } from '../shared/tls-options.js';
import { SQLSERVER_ENGINE } from './sqlserver-engine.js';

export const SQLSERVER_SSL_MODES = SQLSERVER_ENGINE.ssl.modes;
export type SqlServerSslMode = (typeof SQLSERVER_SSL_MODES)[number];

/** The tedious options one SSL mode comes down to. */
export interface SqlServerTls {
  readonly mode: SqlServerSslMode;
  /** tedious `encrypt`: `false` no TLS at all, `true` TLS negotiated inside TDS 7.x, `'strict'` TDS 8.0 (TLS first). */
  readonly encrypt: boolean | 'strict';
  /** Always false: a mode that encrypts also verifies the server certificate. */
  readonly trustServerCertificate: false;
  /** CA / client certificate / key handed to tedious' secure context; empty without TLS. */
  readonly cryptoCredentialsDetails: SecureContextOptions;
}

/**
 * null / '' mean `disable`, the original's default for SQL Server (docs/compatibility.md#tls-modes) (and what the PostgreSQL and
 * MySQL connectors do with an empty mode): a server that forces encryption then answers with a
 * `tls` failure that says which mode to choose.
 */
export const normalizeSslMode = sslModeNormalizer('SQL Server', SQLSERVER_SSL_MODES, 'disable');

/**
 * The original's go-mssqldb `encrypt` values → tedious, without its quirks (`false` and `true`
 * meant "encrypt and trust any certificate" there: docs/compatibility.md#where-fetcher-differs-and-why):
 *
 * - disable, false (and null/''): no encryption. tedious then advertises "encryption not
 *   supported", so even the login packet is sent in clear; a server that requires encryption
 *   refuses the connection (reported as `tls`).
 * - true: TLS negotiated inside the TDS pre-login (SQL Server 2005+); the certificate chain is
 *   verified against `ca` when given (the system roots otherwise) and the host name is checked.
 * - strict: TDS 8.0 (SQL Server 2022+, Azure SQL): TLS before any TDS byte, verified the same
 *   way; the login itself never travels outside TLS.
 */
const ENCRYPT: Readonly<Record<SqlServerSslMode, SqlServerTls['encrypt']>> = {
  disable: false,
  false: false,
  true: true,
  strict: 'strict',
};

/**
 * `cert`/`key` go with every encrypting mode (SQL Server does not ask for a client certificate
 * today, but a TLS-terminating proxy may). A fresh object each call: tedious writes its
 * `maxVersion` default into the one it is given.
 */
export function tlsOptions(ssl: SslSettings): SqlServerTls {
  const mode = normalizeSslMode(ssl.mode);
  const encrypt = ENCRYPT[mode];
  return { mode, encrypt, trustServerCertificate: false, cryptoCredentialsDetails: encrypt === false ? {} : pemMaterial(ssl) };
}
