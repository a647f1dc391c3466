import type { ResolvedDatasource } from './engine-connector.js';

/*
 * What every engine's SSL mode comes down to, before it is put in the driver's words: plain TCP,
 * or TLS checking none, part or all of the server's certificate. Each engine maps its modes to
 * these transports (a table) and the transports to its driver's options (another table).
 */

export type SslSettings = ResolvedDatasource['ssl'];

/** How much of the server's certificate TLS checks: nothing, the chain only, or chain and host name. */
export type TlsCheck = 'unverified' | 'chain' | 'full';

export type Transport = 'plain' | TlsCheck;

/** A driver's TLS options for each check. */
export type TlsChecks<O> = Readonly<Record<TlsCheck, O>>;

/** An SSL mode the engine does not know; reported as a `tls` failure (code FETCHER_SSL_MODE). */
export class UnsupportedSslModeError extends Error {
  override readonly name = 'UnsupportedSslModeError';
  readonly code = 'FETCHER_SSL_MODE';
}

/**
 * The normalizer of one engine's SSL modes: case and surrounding blanks do not matter, an empty or
 * absent mode is `emptyMode`, and an unknown one is refused.
 */
export function sslModeNormalizer<M extends string, E extends M | null>(
  engine: string,
  modes: readonly M[],
  emptyMode: E,
): (mode: string | null | undefined) => M | E {
  return (mode) => {
    const m = (mode ?? '').trim().toLowerCase();
    if (m === '') return emptyMode;
    if ((modes as readonly string[]).includes(m)) return m as M;
    throw new UnsupportedSslModeError(`unsupported ${engine} SSL mode "${m.slice(0, 40)}"`);
  };
}

export interface PemMaterial {
  ca?: string;
  cert?: string;
  key?: string;
}

/** The record's CA, client certificate and key, those it has; sent whenever TLS is used. */
export function pemMaterial(ssl: SslSettings): PemMaterial {
  const out: PemMaterial = {};
  if (ssl.ca) out.ca = ssl.ca;
  if (ssl.cert) out.cert = ssl.cert;
  if (ssl.key) out.key = ssl.key;
  return out;
}

/** A driver's options for one transport: `plain`, or the PEM material and the options of the check. */
export function transportOptions<O, P>(transport: Transport, ssl: SslSettings, checks: TlsChecks<O>, plain: P): O | P {
  return transport === 'plain' ? plain : { ...pemMaterial(ssl), ...checks[transport] };
}

/** A retry with another transport, for the failures `when` accepts. */
export interface Fallback {
  readonly transport: Transport;
  readonly when: (error: unknown) => boolean;
}

/** How to connect for one mode: a first attempt and, for some modes, one retry with other options. */
export interface SslPlan<M, O> {
  readonly mode: M;
  readonly first: O;
  readonly fallback?: { readonly ssl: O; readonly when: (error: unknown) => boolean };
}

/** An engine whose driver has no fallback of its own: its modes as transports, and its driver's options. */
export interface SslModeTable<M extends string, O, P> {
  /** The first attempt's transport, per mode. */
  readonly first: Readonly<Record<M, Transport>>;
  /** The modes that allow one retry. */
  readonly fallback: Readonly<Partial<Record<M, Fallback>>>;
  readonly checks: TlsChecks<O>;
  /** The driver's value for plain TCP. */
  readonly plain: P;
}

/** The plan of `mode`; `first` overrides the table's first transport (a mode whose checks depend on the record). */
export function sslPlanOf<M extends string, O, P>(
  mode: M,
  ssl: SslSettings,
  table: SslModeTable<M, O, P>,
  first: Transport = table.first[mode],
): SslPlan<M, O | P> {
  const options = (transport: Transport): O | P => transportOptions(transport, ssl, table.checks, table.plain);
  const fallback = table.fallback[mode];
  if (fallback === undefined) return { mode, first: options(first) };
  return { mode, first: options(first), fallback: { ssl: options(fallback.transport), when: fallback.when } };
}
