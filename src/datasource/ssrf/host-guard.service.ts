import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { FetCode } from '../../common/errors/fet-code.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { DatasourceError } from '../datasource.error.js';

/** Refused whatever the configuration: cloud metadata endpoints and link-local addresses. */
const ALWAYS_BLOCKED = new BlockList();
ALWAYS_BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4');
ALWAYS_BLOCKED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
ALWAYS_BLOCKED.addSubnet('fe80::', 10, 'ipv6');
ALWAYS_BLOCKED.addAddress('fd00:ec2::254', 'ipv6'); // AWS IMDS over IPv6

/** Refused unless ALLOW_PRIVATE_HOSTS: loopback, private, shared and unspecified ranges. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
PRIVATE.addAddress('::', 'ipv6');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.gcp.internal', 'metadata.azure.internal', 'metadata']);
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

export type AddressResolver = (hostname: string) => Promise<string[]>;

/** Optional override of DNS resolution (tests). */
export const ADDRESS_RESOLVER = Symbol('ADDRESS_RESOLVER');

const resolveAll: AddressResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * SSRF guard (SPEC §8): checks a host before Fetcher connects to it. Names are checked on every
 * address they resolve to; an IPv4-mapped IPv6 address is checked as the IPv4 address it carries.
 * A name that does not resolve is allowed: the driver's own connect fails, and refusing it would let
 * the API probe which names exist.
 */
@Injectable()
export class HostGuard {
  private readonly allowPrivate: boolean;

  private readonly resolve: AddressResolver;

  constructor(
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'allowPrivateHosts'>,
    @Optional() @Inject(ADDRESS_RESOLVER) resolver?: AddressResolver,
  ) {
    this.allowPrivate = config.allowPrivateHosts;
    this.resolve = resolver ?? resolveAll;
  }

  /** Throws DatasourceError FET-0414 when `host` must not be connected to. */
  async assertAllowed(host: string): Promise<void> {
    const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
    if (METADATA_NAMES.has(name)) throw forbidden();
    if (!this.allowPrivate && (LOCAL_NAMES.has(name) || name.endsWith('.localhost'))) throw forbidden();
    const addresses = isIP(name) ? [name] : await this.resolve(name).catch(() => []);
    for (const address of addresses) {
      if (this.blocked(address)) throw forbidden();
    }
  }

  private blocked(address: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const [ip, family] = mapped ? [mapped, 'ipv4' as const] : [address, isIP(address) === 6 ? ('ipv6' as const) : ('ipv4' as const)];
    if (ALWAYS_BLOCKED.check(ip, family)) return true;
    return !this.allowPrivate && PRIVATE.check(ip, family);
  }
}

function forbidden(): DatasourceError {
  return new DatasourceError(FetCode.ForbiddenHost, 'Host is not a valid external database endpoint', {
    fields: { host: 'this host is not allowed: loopback, private, link-local and cloud metadata addresses are refused' },
  });
}
