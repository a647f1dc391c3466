import { isIP } from 'node:net';
import { classifyAddress, permits, type AddressVerdict } from './address-policy.js';
import { systemResolver, type AddressResolver } from './address-resolver.js';
import { forbiddenHost, unresolvedHost } from './egress-errors.js';
import { normalizeHost, ScopedEgress, type EgressChecks, type EgressTarget } from './egress-policy.js';

/** Cloud metadata names: refused even when they would resolve to an allowed address. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.gcp.internal', 'metadata.azure.internal', 'metadata']);
/** Names of this host: refused by name too, so that no resolver quirk is relied on. */
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

export interface EgressGuardPolicy {
  /** Loopback and private networks may be reached (the service: ALLOW_PRIVATE_HOSTS; a library: yes by default). */
  readonly allowPrivateHosts: boolean;
}

/**
 * SSRF guard: decides which hosts Fetcher may connect to (address-policy.ts has the ranges).
 *
 * - `assertAllowed` checks a record on create and PATCH. A name that does not resolve is
 *   accepted there: a connection may be registered before its DNS entry exists.
 * - `resolveTarget` runs right before a connect: the name is resolved once, every address is
 *   checked, and the connector dials the first one, so DNS cannot answer differently between the
 *   check and the dial. A name without addresses is not attempted.
 * - `checkAddress` is for sockets a driver opens later (redirects, routing).
 */
export class EgressGuard implements EgressChecks {
  private readonly allowPrivate: boolean;

  private readonly resolve: AddressResolver;

  constructor(policy: EgressGuardPolicy, resolver?: AddressResolver) {
    this.allowPrivate = policy.allowPrivateHosts;
    this.resolve = resolver ?? systemResolver;
  }

  /** Throws EgressRefusedError FET-0414 when `host` must not be connected to. */
  async assertAllowed(host: string): Promise<void> {
    const name = normalizeHost(host);
    this.assertName(name);
    const addresses = isIP(name) ? [name] : await this.lookup(name).catch(() => []);
    for (const address of addresses) this.checkAddress(address);
  }

  /**
   * The one address to dial for `host`, after checking every address the name has. Throws
   * FET-0414 when any is refused (a name answering a public and a private address could be
   * dialled at either), and DatasourceConnectError `unreachable` when the name has none.
   */
  async resolveTarget(host: string, configName: string): Promise<EgressTarget> {
    const name = normalizeHost(host);
    this.assertName(name);
    let addresses: string[];
    if (isIP(name)) {
      addresses = [name];
    } else {
      try {
        addresses = await this.lookup(name);
      } catch (error) {
        throw unresolvedHost(configName, error);
      }
      if (addresses.length === 0) throw unresolvedHost(configName);
    }
    for (const address of addresses) this.checkAddress(address);
    const address = addresses[0];
    return { host: name, address, family: isIP(address) === 6 ? 6 : 4 };
  }

  /** Throws FET-0414 unless `ip` is an IP literal the policy lets through; a host name is refused. */
  checkAddress(ip: string): void {
    if (!permits(this.classify(ip), this.allowPrivate)) throw forbiddenHost();
  }

  /** The policy of one open(): pinned to `target`, checking every other socket. */
  egressFor(target: EgressTarget, configName: string): ScopedEgress {
    return new ScopedEgress(target, this, configName);
  }

  /** The verdict for one address; a subclass may narrow or widen it (tests with loopback servers). */
  protected classify(address: string): AddressVerdict {
    return classifyAddress(address);
  }

  private assertName(name: string): void {
    if (METADATA_NAMES.has(name)) throw forbiddenHost();
    if (!this.allowPrivate && (LOCAL_NAMES.has(name) || name.endsWith('.localhost'))) throw forbiddenHost();
  }

  private async lookup(name: string): Promise<string[]> {
    return [...(await this.resolve(name))];
  }
}
