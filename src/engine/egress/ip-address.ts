import { isIP } from 'node:net';

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
