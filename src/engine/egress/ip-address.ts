import { isIP } from 'node:net';
import { normalizeHost } from './egress-policy.js';

/**
 * An IP address as its bytes: 4 for IPv4, 16 for IPv6. Policies compare bytes, never text, so
 * `::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1` and `::FFFF:127.0.0.1` are one address.
 */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

/** Brackets (`[::1]`) and an IPv6 zone (`fe80::1%eth0`) are not part of the address. */
function bare(text: string): string {
  const unbracketed = text.trim().replace(/^\[(.*)\]$/, '$1');
  const zone = unbracketed.indexOf('%');
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

function ipv4Bytes(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** The eight 16-bit groups of an IPv6 literal that `isIP` accepted (a trailing dotted quad counts as two). */
function ipv6Groups(text: string): number[] {
  const hextets = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((piece) => {
      if (!piece.includes('.')) return [parseInt(piece, 16)];
      const [a, b, c, d] = ipv4Bytes(piece);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const gap = text.indexOf('::');
  if (gap === -1) return hextets(text);
  const head = hextets(text.slice(0, gap));
  const tail = hextets(text.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** The address `text` spells, or null when it is not an IP literal (a host name, say). */
export function parseIp(text: string): IpAddress | null {
  const address = bare(text);
  switch (isIP(address)) {
    case 4:
      return { family: 4, bytes: ipv4Bytes(address) };
    case 6: {
      const groups = ipv6Groups(address);
      if (groups.length !== 8) return null;
      const bytes = new Uint8Array(16);
      groups.forEach((group, i) => {
        bytes[2 * i] = group >> 8;
        bytes[2 * i + 1] = group & 0xff;
      });
      return { family: 6, bytes };
    }
    default:
      return null;
  }
}

/** Dotted text of four bytes, for messages and tests. */
export function formatIpv4(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 4)).join('.');
}

/**
 * One spelling per address, for keying what is shared by whoever reaches it (the per-host caps):
 * IPv4 dotted, an IPv4-mapped IPv6 address as the IPv4 it carries (a socket connected to
 * `::ffff:10.0.0.1` reaches 10.0.0.1), other IPv6 as eight lower-case groups. Text that is not an
 * IP literal is returned normalised as a host name (normalizeHost).
 */
export function addressKey(text: string): string {
  const host = normalizeHost(text);
  const ip = parseIp(host);
  if (ip === null) return host;
  if (ip.family === 4) return formatIpv4(ip.bytes);
  const mapped = ip.bytes.subarray(0, 10).every((byte) => byte === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff;
  if (mapped) return formatIpv4(ip.bytes.subarray(12));
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] << 8) | ip.bytes[i + 1]).toString(16));
  return groups.join(':');
}
