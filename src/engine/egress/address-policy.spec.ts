import { describe, expect, it } from 'vitest';
import { ADDRESS_RANGES, classifyAddress, permits, type AddressVerdict } from './address-policy.js';

type Row = readonly [range: string, sample: string, verdict: AddressVerdict];

/**
 * One row per range of the policy (a test below checks none is missing), then tricky spellings.
 * The verdict says whether Fetcher connects: `allowed` always, `private` only with
 * ALLOW_PRIVATE_HOSTS, `refused` never.
 */
const RANGE_ROWS: readonly Row[] = [
  ['0.0.0.0/0', '93.184.216.34', 'allowed'],
  ['0.0.0.0/8', '0.0.0.0', 'private'],
  ['10.0.0.0/8', '10.20.30.40', 'private'],
  ['100.64.0.0/10', '100.127.255.254', 'private'],
  ['100.100.100.200/32', '100.100.100.200', 'refused'],
  ['127.0.0.0/8', '127.1.2.3', 'private'],
  ['168.63.129.16/32', '168.63.129.16', 'refused'],
  ['169.254.0.0/16', '169.254.170.2', 'refused'],
  ['169.254.169.254/32', '169.254.169.254', 'refused'],
  ['172.16.0.0/12', '172.31.255.1', 'private'],
  ['192.0.0.0/24', '192.0.0.9', 'refused'],
  ['192.0.2.0/24', '192.0.2.10', 'refused'],
  ['192.31.196.0/24', '192.31.196.1', 'refused'],
  ['192.52.193.0/24', '192.52.193.7', 'refused'],
  ['192.88.99.0/24', '192.88.99.1', 'refused'],
  ['192.168.0.0/16', '192.168.1.10', 'private'],
  ['192.175.48.0/24', '192.175.48.42', 'refused'],
  ['198.18.0.0/15', '198.19.0.1', 'private'],
  ['198.51.100.0/24', '198.51.100.200', 'refused'],
  ['203.0.113.0/24', '203.0.113.5', 'refused'],
  ['224.0.0.0/4', '239.255.255.250', 'refused'],
  ['240.0.0.0/4', '240.0.0.1', 'refused'],
  ['255.255.255.255/32', '255.255.255.255', 'refused'],
  ['::/0', '4000::1', 'refused'],
  ['2000::/3', '2606:4700:4700::1111', 'allowed'],
  ['::/96', '::8.8.8.8', 'allowed'],
  ['::/128', '::', 'private'],
  ['::1/128', '::1', 'private'],
  ['::ffff:0:0/96', '::ffff:93.184.216.34', 'allowed'],
  ['::ffff:0:0:0/96', '::ffff:0:a9fe:a9fe', 'refused'],
  ['64:ff9b::/96', '64:ff9b::5db8:d822', 'allowed'],
  ['64:ff9b:1::/48', '64:ff9b:1::5db8:d822', 'private'],
  ['100::/64', '100::1', 'refused'],
  ['2001::/23', '2001:20::1', 'refused'],
  ['2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'refused'],
  ['2001:2::/48', '2001:2::1', 'private'],
  ['2001:db8::/32', '2001:db8::1', 'refused'],
  ['2002::/16', '2002:5db8:d822::1', 'allowed'],
  ['2620:4f:8000::/48', '2620:4f:8000::42', 'refused'],
  ['3fff::/20', '3fff:fff::1', 'refused'],
  ['5f00::/16', '5f00::1', 'refused'],
  ['fc00::/7', 'fd12:3456::1', 'private'],
  ['fd00:ec2::/32', 'fd00:ec2::254', 'refused'],
  ['fe80::/10', 'fe80::1', 'refused'],
  ['fec0::/10', 'fec0::1', 'private'],
  ['ff00::/8', 'ff02::1', 'refused'],
];

/** Embedded IPv4 in every spelling, zones, brackets and other ways to hide an address. */
const SPELLING_ROWS: readonly Row[] = [
  ['mapped, dotted', '::ffff:127.0.0.1', 'private'],
  ['mapped, hex', '::ffff:7f00:1', 'private'],
  ['mapped, upper case and leading zeros', '0:0:0:0:0:FFFF:7F00:0001', 'private'],
  ['mapped metadata, hex', '::ffff:a9fe:a9fe', 'refused'],
  ['mapped metadata, dotted', '::ffff:169.254.169.254', 'refused'],
  ['mapped Alibaba metadata', '::ffff:6464:64c8', 'refused'],
  ['compatible, dotted', '::127.0.0.1', 'private'],
  ['compatible, hex', '::7f00:1', 'private'],
  ['compatible metadata', '::a9fe:a9fe', 'refused'],
  ['NAT64 loopback, dotted', '64:ff9b::127.0.0.1', 'private'],
  ['NAT64 metadata, hex', '64:ff9b::a9fe:a9fe', 'refused'],
  ['NAT64 private', '64:ff9b::a00:1', 'private'],
  ['local NAT64 /96 metadata', '64:ff9b:1::a9fe:a9fe', 'refused'],
  ['local NAT64 /48 metadata', '64:ff9b:1:a9fe:a9:fe00::', 'refused'],
  ['local NAT64 /64 metadata', '64:ff9b:1:0:a9:fea9:fe00:0', 'refused'],
  ['6to4 loopback', '2002:7f00:1::1', 'private'],
  ['6to4 metadata', '2002:a9fe:a9fe::', 'refused'],
  ['6to4 private', '2002:c0a8:10a::1', 'private'],
  ['6to4 multicast', '2002:e000:1::', 'refused'],
  ['Teredo with a public server and client', '2001:0:5db8:d822::a246:29dd', 'refused'],
  ['loopback, long form', '0:0:0:0:0:0:0:1', 'private'],
  ['loopback, bracketed', '[::1]', 'private'],
  ['unspecified, long form', '0:0:0:0:0:0:0:0', 'private'],
  ['link-local with a zone', 'fe80::1%eth0', 'refused'],
  ['ULA with a zone', 'fd00::1%2', 'private'],
  ['loopback, last of /8', '127.255.255.255', 'private'],
  ['just outside 172.16/12', '172.32.0.1', 'allowed'],
  ['just outside 100.64/10', '100.128.0.1', 'allowed'],
  ['just outside 198.18/15', '198.20.0.1', 'allowed'],
  ['AWS metadata neighbour, still ULA', 'fd00:ec3::254', 'private'],
  ['decimal integer is not an IP literal', '2130706433', 'refused'],
  ['octal-looking IPv4 is not an IP literal', '0177.0.0.1', 'refused'],
  ['a host name is not an IP literal', 'localhost', 'refused'],
];

describe('address policy', () => {
  it.each([...RANGE_ROWS, ...SPELLING_ROWS])('%s: %s is %s', (_range, sample, verdict) => {
    expect(classifyAddress(sample)).toBe(verdict);
    expect(permits(classifyAddress(sample), false)).toBe(verdict === 'allowed');
    expect(permits(classifyAddress(sample), true)).toBe(verdict !== 'refused');
  });

  it('has a sample for every range it declares, and none for a range it does not', () => {
    const declared = ADDRESS_RANGES.map(([cidr]) => cidr);
    expect(RANGE_ROWS.map(([range]) => range)).toEqual(declared);
  });
});
