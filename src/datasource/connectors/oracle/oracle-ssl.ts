import { connect as tlsConnect, rootCertificates, type DetailedPeerCertificate } from 'node:tls';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { throwAwayIdentity } from './oracle-tls-identity.js';

export const ORACLE_SSL_MODES = ['disable', 'false', 'true', 'enable', 'verify', 'skip-verify'] as const;
export type OracleSslMode = (typeof ORACLE_SSL_MODES)[number];

export class UnsupportedSslModeError extends Error {
  override readonly name = 'UnsupportedSslModeError';
  readonly code = 'FETCHER_SSL_MODE';
}

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

export function normalizeSslMode(mode: string | null | undefined): OracleSslMode | null {
  const m = (mode ?? '').trim().toLowerCase();
  if (m === '') return null;
  if ((ORACLE_SSL_MODES as readonly string[]).includes(m)) return m as OracleSslMode;
  throw new UnsupportedSslModeError(`unsupported Oracle SSL mode "${m.slice(0, 40)}"`);
}

/**
 * The wallet text: the client identity first (node-oracledb uses the first certificate and the
 * private key of the PEM as its client certificate), then the CAs to trust. Without a client
 * certificate in the record, the process's throw-away identity stands in (oracle-tls-identity.ts
 * explains why thin mode needs one). Giving a `ca` replaces the system roots, as on the other
 * engines; without one the system roots are kept (the wallet's CAs replace them otherwise).
 */
export function walletFor(ssl: ResolvedDatasource['ssl'], extraCas: readonly string[] = []): string | undefined {
  const clientCert = ssl.cert && ssl.key ? { cert: ssl.cert, key: ssl.key } : undefined;
  if (!clientCert && !ssl.ca && extraCas.length === 0) return undefined; // plain system roots
  const identity = clientCert ?? { cert: throwAwayIdentity().certificatePem, key: throwAwayIdentity().privateKeyPem };
  const cas = ssl.ca ? [ssl.ca] : rootCertificates;
  return [identity.cert, identity.key, ...cas, ...extraCas].map((pem) => pem.trim() + '\n').join('');
}

/**
 * The original's Oracle modes (which it validated but ignored, a QUIRK) → node-oracledb thin TLS:
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
export function tlsPlan(ssl: ResolvedDatasource['ssl'], metadata: Readonly<Record<string, unknown>> = {}): OracleTlsPlan {
  const mode = normalizeSslMode(ssl.mode);
  if (mode === null || mode === 'disable' || mode === 'false')
    return { mode: mode ?? 'disable', protocol: 'TCP', trustPresentedChain: false };
  const walletContent = walletFor(ssl);
  const wallet = walletContent === undefined ? {} : { walletContent };
  switch (mode) {
    case 'true':
    case 'enable':
      return { mode, protocol: 'TCPS', ...wallet, sslServerDNMatch: false, trustPresentedChain: false };
    case 'verify': {
      const dn =
        typeof metadata.sslServerCertDN === 'string' && metadata.sslServerCertDN.trim() !== ''
          ? metadata.sslServerCertDN.trim()
          : undefined;
      return {
        mode,
        protocol: 'TCPS',
        ...wallet,
        sslServerDNMatch: true,
        ...(dn === undefined ? {} : { sslServerCertDN: dn }),
        trustPresentedChain: false,
      };
    }
    case 'skip-verify':
      return { mode, protocol: 'TCPS', ...wallet, sslServerDNMatch: false, trustPresentedChain: true };
  }
}

function toPem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** The certificates of a peer chain as PEM, leaf first, each once. */
export function chainPems(peer: DetailedPeerCertificate | undefined): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let cert = peer; cert?.raw !== undefined; cert = cert.issuerCertificate) {
    const fingerprint = cert.fingerprint256 ?? cert.raw.toString('base64');
    if (seen.has(fingerprint)) break; // a self-signed root is its own issuer
    seen.add(fingerprint);
    out.push(toPem(cert.raw));
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
