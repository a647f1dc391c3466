/*
 * What every engine's connect-failure classifier looks for: the socket, timeout and TLS signs of
 * node and OpenSSL. Engine files add their drivers' codes; connect-failure-message.ts says what a
 * failure was.
 */

/** Our own connect deadline (it also covers TLS, the login and the session setup that follow). */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'FETCHER_CONNECT_TIMEOUT';
}

/** Node socket and DNS codes of a server that cannot be reached, with what each means. */
export const SOCKET_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};

/** Our own deadline and node's socket timeout. */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(['FETCHER_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** OpenSSL / node TLS codes (OpenSSL's verification codes arrive without an ERR_ prefix), and our own SSL mode error. */
const TLS_CODE_PREFIXES = [
  'ERR_TLS_',
  'ERR_SSL_',
  'ERR_OSSL_',
  'CERT_',
  'DEPTH_ZERO_',
  'SELF_SIGNED_',
  'UNABLE_TO_',
  'HOSTNAME_MISMATCH',
  'FETCHER_SSL_MODE',
];

/** Words of TLS failures in node's and every driver's messages. */
const TLS_WORDS = ['certificate', 'SSL routines', 'TLS'];

/** How a TLS failure shows: its code, or words in its message. */
export interface TlsSigns {
  /** Codes of TLS failures, matched at the start. */
  readonly code: RegExp;
  mentionedIn(message: string): boolean;
  /** Either sign. */
  shownBy(code: string, message: string): boolean;
}

/** The common TLS signs and a driver's own: code prefixes (regex sources) and message words. */
export function tlsSigns(driverCodes: readonly string[] = [], driverWords: readonly string[] = []): TlsSigns {
  const code = new RegExp(`^(${[...driverCodes, ...TLS_CODE_PREFIXES].join('|')})`);
  const words = [...TLS_WORDS, ...driverWords];
  const mentionedIn = (message: string): boolean => words.some((word) => message.includes(word));
  return { code, mentionedIn, shownBy: (c, message) => code.test(c) || mentionedIn(message) };
}

/** A code safe to show: an error name, an SQLSTATE or a node code, never free text. */
export const SAFE_CODE = /^[A-Z0-9_]{3,60}$/;

/** `code` when it is safe to show, '' otherwise. */
export const safeCode = (code: string): string => (SAFE_CODE.test(code) ? code : '');

/** `name` of an error when it is a string, '' otherwise. */
export function stringField(error: unknown, name: string): string {
  if (typeof error !== 'object' || error === null) return '';
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** `name` of an error when it is a number. */
export function numberField(error: unknown, name: string): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'number' ? value : undefined;
}
