import { parseIp, type IpAddress } from './ip-address.js';

/**
 * Where an address may lead:
 * - allowed: a public unicast address, a possible database endpoint;
 * - private: this host or a private network, refused unless ALLOW_PRIVATE_HOSTS;
 * - refused: never a database endpoint whatever the configuration (link-local, cloud metadata,
 *   multicast, documentation, reserved and protocol-specific ranges).
 */
export type AddressVerdict = 'allowed' | 'private' | 'refused';

const SEVERITY: Readonly<Record<AddressVerdict, number>> = { allowed: 0, private: 1, refused: 2 };

const worst = (verdicts: readonly AddressVerdict[]): AddressVerdict =>
  verdicts.reduce((a, b) => (SEVERITY[b] > SEVERITY[a] ? b : a), 'allowed');

/** Whether a verdict lets a connection through. */
export function permits(verdict: AddressVerdict, allowPrivateHosts: boolean): boolean {
  return verdict === 'allowed' || (verdict === 'private' && allowPrivateHosts);
}

/** The IPv4 addresses an IPv6 address carries, by where a transition mechanism puts them. */
type Embedding = (bytes: Uint8Array) => Uint8Array[];

const lastFour: Embedding = (bytes) => [bytes.subarray(12, 16)];
const sixToFour: Embedding = (bytes) => [bytes.subarray(2, 6)];

/**
 * RFC 6052 positions of the IPv4 address for each prefix length a local-use NAT64 prefix may
 * have inside 64:ff9b:1::/48 (byte 8, the "u" octet, is always skipped). Which length the
 * operator chose cannot be known from here, so every reading is judged.
 */
const localNat64: Embedding = (b) => [
  Uint8Array.of(b[6], b[7], b[9], b[10]),
  Uint8Array.of(b[7], b[9], b[10], b[11]),
  b.subarray(9, 13),
  b.subarray(12, 16),
];

type Rule =
  | { readonly verdict: AddressVerdict }
  /** Judged as the IPv4 addresses it carries, and never better than `floor`. */
  | { readonly embedded: Embedding; readonly floor?: AddressVerdict };

const ALLOWED: Rule = { verdict: 'allowed' };
const PRIVATE: Rule = { verdict: 'private' };
const REFUSED: Rule = { verdict: 'refused' };

/**
 * The ranges, each with its reason. The most specific range containing an address decides (as
 * in routing), so an exception is a longer prefix inside a wider row: 100.100.100.200 is refused
 * inside the private 100.64.0.0/10, fd00:ec2::/32 inside the private fc00::/7.
 */
export const ADDRESS_RANGES: ReadonlyArray<readonly [cidr: string, rule: Rule, why: string]> = [
  // IPv4: public unless listed.
  ['0.0.0.0/0', ALLOWED, 'public unicast'],
  ['0.0.0.0/8', PRIVATE, '"this network": connecting to 0.0.0.0 reaches the local host'],
  ['10.0.0.0/8', PRIVATE, 'private network (RFC 1918)'],
  ['100.64.0.0/10', PRIVATE, 'shared address space behind carrier-grade NAT (RFC 6598)'],
  ['100.100.100.200/32', REFUSED, 'Alibaba Cloud instance metadata'],
  ['127.0.0.0/8', PRIVATE, 'loopback'],
  ['168.63.129.16/32', REFUSED, 'Azure WireServer: platform agent and extension settings of the VM'],
  ['169.254.0.0/16', REFUSED, 'link-local: only neighbours and cloud platform services (ECS task metadata at 169.254.170.2…)'],
  ['169.254.169.254/32', REFUSED, 'instance metadata of AWS, GCP, Azure, OCI, OpenStack'],
  ['172.16.0.0/12', PRIVATE, 'private network (RFC 1918)'],
  ['192.0.0.0/24', REFUSED, 'IETF protocol assignments (DS-Lite, PCP and TURN anycast, NAT64 discovery)'],
  ['192.0.2.0/24', REFUSED, 'documentation (TEST-NET-1)'],
  ['192.31.196.0/24', REFUSED, 'AS112 DNS sink'],
  ['192.52.193.0/24', REFUSED, 'AMT relay anycast'],
  ['192.88.99.0/24', REFUSED, 'deprecated 6to4 relay anycast: traffic would leave through an unknown relay'],
  ['192.168.0.0/16', PRIVATE, 'private network (RFC 1918)'],
  ['192.175.48.0/24', REFUSED, 'AS112 direct delegation DNS sink'],
  ['198.18.0.0/15', PRIVATE, 'benchmarking: used for lab and internal networks'],
  ['198.51.100.0/24', REFUSED, 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', REFUSED, 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', REFUSED, 'multicast: never a TCP peer'],
  ['240.0.0.0/4', REFUSED, 'reserved for future use'],
  ['255.255.255.255/32', REFUSED, 'limited broadcast'],

  // IPv6: only global unicast (2000::/3) is public; the rest of the space is unassigned.
  ['::/0', REFUSED, 'not assigned for unicast'],
  ['2000::/3', ALLOWED, 'global unicast'],
  ['::/96', { embedded: lastFour }, 'IPv4-compatible (deprecated): judged as the IPv4 it carries'],
  ['::/128', PRIVATE, 'unspecified: connecting to :: reaches the local host'],
  ['::1/128', PRIVATE, 'loopback'],
  ['::ffff:0:0/96', { embedded: lastFour }, 'IPv4-mapped: the socket connects to the IPv4 it carries'],
  ['::ffff:0:0:0/96', { embedded: lastFour }, 'IPv4-translated (SIIT): translated to the IPv4 it carries'],
  ['64:ff9b::/96', { embedded: lastFour }, 'NAT64 well-known prefix: translated to the IPv4 it carries'],
  ['64:ff9b:1::/48', { embedded: localNat64, floor: 'private' }, 'local-use NAT64: a local translator, to the IPv4 it carries'],
  ['100::/64', REFUSED, 'discard-only'],
  ['2001::/23', REFUSED, 'IETF protocol assignments (ORCHID, AMT, AS112, DRIP, anycast services)'],
  [
    '2001::/32',
    REFUSED,
    'Teredo: always refused. The client IPv4 it carries is obfuscated and usually behind NAT, and the ' +
      'packets go through an unknown relay; no database is reached this way',
  ],
  ['2001:2::/48', PRIVATE, 'benchmarking, as 198.18.0.0/15'],
  ['2001:db8::/32', REFUSED, 'documentation'],
  ['2002::/16', { embedded: sixToFour }, '6to4: relayed to the IPv4 in bits 16–47'],
  ['2620:4f:8000::/48', REFUSED, 'AS112 direct delegation DNS sink'],
  ['3fff::/20', REFUSED, 'documentation (RFC 9637)'],
  ['5f00::/16', REFUSED, 'SRv6 segment identifiers'],
  ['fc00::/7', PRIVATE, 'unique local addresses: private networks'],
  ['fd00:ec2::/32', REFUSED, 'AWS platform services: instance metadata (::254), DNS (::253), time (::123)'],
  ['fe80::/10', REFUSED, 'link-local'],
  ['fec0::/10', PRIVATE, 'site-local (deprecated): private networks'],
  ['ff00::/8', REFUSED, 'multicast: never a TCP peer'],
];

interface CompiledRange {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly prefix: number;
  readonly rule: Rule;
}

function compile(cidr: string, rule: Rule): CompiledRange {
  const [network, length] = cidr.split('/');
  const address = parseIp(network);
  if (address === null) throw new Error(`bad range ${cidr}`);
  return { family: address.family, bytes: address.bytes, prefix: Number(length), rule };
}

const RANGES: readonly CompiledRange[] = ADDRESS_RANGES.map(([cidr, rule]) => compile(cidr, rule));

function contains(range: CompiledRange, address: IpAddress): boolean {
  if (range.family !== address.family) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (range.bytes[i] !== address.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (range.bytes[whole] & mask) === (address.bytes[whole] & mask);
}

function judge(address: IpAddress): AddressVerdict {
  let best: CompiledRange | undefined;
  for (const range of RANGES) {
    if (contains(range, address) && (best === undefined || range.prefix > best.prefix)) best = range;
  }
  const rule = best?.rule ?? REFUSED;
  if ('verdict' in rule) return rule.verdict;
  const carried = rule.embedded(address.bytes).map((bytes) => judge({ family: 4, bytes }));
  return worst([rule.floor ?? 'allowed', ...carried]);
}

/** The verdict for an IP literal in any spelling; anything that is not one is refused. */
export function classifyAddress(text: string): AddressVerdict {
  const address = parseIp(text);
  return address === null ? 'refused' : judge(address);
}
