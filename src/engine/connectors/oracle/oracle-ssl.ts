import { connect as tlsConnect, rootCertificates, type DetailedPeerCertificate } from 'node:tls';
import { type SslSettings, sslModeNormalizer, type TlsChecks, type Transport } from '../shared/tls-options.js';
import { pemOf, throwAwayIdentity } from './oracle-tls-identity.js';
import { ORACLE_ENGINE } from './oracle-engine.js';

export const ORACLE_SSL_MODES = ORACLE_ENGINE.ssl.modes;
export type OracleSslMode = (typeof ORACLE_SSL_MODES)[number];

/** The transport and node-oracledb TLS options for one connection record. */
export interface OracleTlsPlan {
  readonly mode: OracleSslMode;
  readonly protocol: 'TCP' | 'TCPS';
  /** PEM for `walletContent`: client certificate, its key, then every trusted CA. */
  readonly walletContent?: string;
  readonly sslServerDNMatch?: boolean;
  readonly sslServerCertDN?: string;
  /** skip-verify: the chain the server presents is added to the trusted CAs (see probeServerChain). */
  readonly trustPresentedChain: boolean;
}

export const normalizeSslMode = sslModeNormalizer('Oracle', ORACLE_SSL_MODES, null);

/**
 * The wallet text: the client identity first (node-oracledb uses the first certificate and the
 * private key of the PEM as its client certificate), then the CAs to trust. Without a client
 * certificate in the record, the process's throw-away identity stands in (oracle-tls-identity.ts
 * explains why thin mode needs one). Giving a `ca` replaces the system roots, as on the other
 * engines; without one the system roots are kept (the wallet's CAs replace them otherwise).
 */
export function walletFor(ssl: SslSettings, extraCas: readonly string[] = []): string | undefined {
  const clientCert = ssl.cert && ssl.key ? { cert: ssl.cert, key: ssl.key } : undefined;
  if (!clientCert && !ssl.ca && extraCas.length === 0) return undefined; // plain system roots
  const identity = clientCert ?? { cert: throwAwayIdentity().certificatePem, key: throwAwayIdentity().privateKeyPem };
  const cas = ssl.ca ? [ssl.ca] : rootCertificates;
  return [identity.cert, identity.key, ...cas, ...extraCas].map((pem) => pem.trim() + '\n').join('');
}

/**
 * The original's Oracle modes → node-oracledb thin TLS (it validated them but ignored them:
 * docs/compatibility.md#where-fetcher-differs-and-why):
 *
 * - null/'', `disable`, `false`: plain TCP.
 * - `true`, `enable`: TCPS; the server chain is verified against `ca` (system roots without one);
 *   the host name is not matched. That is Oracle Net's own default (SSL_SERVER_DN_MATCH off):
 *   Oracle listeners' certificates often name a service, a SCAN or a load balancer rather than
 *   the host dialled.
 * - `verify`: TCPS, chain verified and the certificate must match the host name (subject
 *   alternative names / CN); with `metadata.sslServerCertDN` it must have exactly that DN.
 * - `skip-verify`: TCPS without host matching, and trusting whatever chain the server presents:
 *   thin mode always verifies chains (it passes rejectUnauthorized: true), so the presented
 *   chain is read first by a probe handshake and added to the trusted CAs. This works when the
 *   server sends a self-signed certificate or its root; a chain that stops at an intermediate
 *   cannot be trusted this way (give its root as `ca`).
 *
 * `cert`/`key` (PEM, unencrypted key) are the client certificate whenever TLS is used. Oracle
 * wallets (ewallet.p12 / cwallet.sso) cannot be given: the record carries PEM only.
 */
const TRANSPORTS: Readonly<Record<OracleSslMode, Transport>> = {
  disable: 'plain',
  false: 'plain',
  true: 'chain',
  enable: 'chain',
  verify: 'full',
  'skip-verify': 'unverified',
};

const CHECKS: TlsChecks<Pick<OracleTlsPlan, 'sslServerDNMatch' | 'trustPresentedChain'>> = {
  unverified: { sslServerDNMatch: false, trustPresentedChain: true },
  chain: { sslServerDNMatch: false, trustPresentedChain: false },
  full: { sslServerDNMatch: true, trustPresentedChain: false },
};

export function tlsPlan(ssl: SslSettings, metadata: Readonly<Record<string, unknown>> = {}): OracleTlsPlan {
  const mode = normalizeSslMode(ssl.mode) ?? 'disable';
  const transport = TRANSPORTS[mode];
  if (transport === 'plain') return { mode, protocol: 'TCP', trustPresentedChain: false };
  const walletContent = walletFor(ssl);
  const dn = typeof metadata.sslServerCertDN === 'string' ? metadata.sslServerCertDN.trim() : '';
  return {
    mode,
    protocol: 'TCPS',
    ...(walletContent === undefined ? {} : { walletContent }),
    ...CHECKS[transport],
    ...(transport === 'full' && dn !== '' ? { sslServerCertDN: dn } : {}),
  };
}

/** The certificates of a peer chain as PEM, leaf first, each once. */
export function chainPems(peer: DetailedPeerCertificate | undefined): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let cert = peer; cert?.raw !== undefined; cert = cert.issuerCertificate) {
    const fingerprint = cert.fingerprint256 ?? cert.raw.toString('base64');
    if (seen.has(fingerprint)) break; // a self-signed root is its own issuer
    seen.add(fingerprint);
    out.push(pemOf('CERTIFICATE', cert.raw));
  }
  return out;
}

/**
 * Reads the certificate chain a TCPS listener presents, without verifying it, and hangs up
 * right after the handshake (no Oracle Net bytes are sent). Rejects with the socket or TLS error.
 */
export function probeServerChain(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // No SNI, as node-oracledb sends none by default: the server picks the same certificate.
    const socket = tlsConnect({ host, port, servername: '', rejectUnauthorized: false });
    const finish = (error: unknown, chain?: string[]): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (chain !== undefined) resolve(chain);
      else reject(error);
    };
    const onAbort = (): void => finish(signal?.reason);
    const timer = setTimeout(
      () => finish(Object.assign(new Error(`TLS probe of ${host}:${port} timed out`), { code: 'ETIMEDOUT' })),
      timeoutMs > 0 ? timeoutMs : 20_000,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => finish(undefined, chainPems(socket.getPeerCertificate(true))));
    socket.once('error', (error) => finish(error));
  });
}
