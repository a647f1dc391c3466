import { isIP } from 'node:net';

/** Express's `trust proxy`: false (the socket's peer is the client), a hop count, or the proxies' addresses. */
export type TrustProxy = false | number | readonly string[];

const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: which X-Forwarded-For entries name the client. Unset, the socket's peer does, and a
 * caller cannot choose the address its failed authentications are counted under. `true` (trust
 * any hop) is refused for that reason: the client would write its own address.
 */
export function parseTrustProxy(value: string | undefined): { trustProxy: TrustProxy; problem?: string } {
  const text = value?.trim();
  if (text === undefined || text === '' || text === 'false') return { trustProxy: false };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops >= 1 && hops <= 10) return { trustProxy: hops };
  }
  const items = text.split(',').map((item) => item.trim());
  if (items.every((item) => NAMED.has(item) || isAddressOrRange(item))) return { trustProxy: items };
  return {
    trustProxy: false,
    problem:
      'TRUST_PROXY: must be the number of proxies in front of Fetcher (1-10) or a comma-separated list of their addresses or ranges (CIDR, loopback, linklocal, uniquelocal); true is refused, as it would let a client name its own address',
  };
}

function isAddressOrRange(item: string): boolean {
  const [address, prefix, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
