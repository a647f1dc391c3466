import { lookup } from 'node:dns/promises';

/**
 * Every address a host name has now, in the resolver's order. Rejects (or answers nothing) when
 * the name does not resolve.
 */
export type AddressResolver = (hostname: string) => Promise<string[]>;

/**
 * The system resolver, as drivers would use it (hosts file, then DNS). `verbatim` keeps its
 * order: the first address is the one dialled, as getaddrinfo's caller would.
 */
export const systemResolver: AddressResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
