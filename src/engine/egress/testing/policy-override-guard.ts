import type { AddressVerdict } from '../address-policy.js';
import type { AddressResolver } from '../address-resolver.js';
import { EgressGuard } from '../egress-guard.js';

/**
 * The real guard (private hosts refused) with some addresses declared public: test servers can
 * only listen on loopback, and a test needs one of them reachable while another stays refused.
 */
export class PolicyOverrideGuard extends EgressGuard {
  private readonly publicAddresses: ReadonlySet<string>;

  constructor(publicAddresses: readonly string[], resolver: AddressResolver = async () => []) {
    super({ allowPrivateHosts: false }, resolver);
    this.publicAddresses = new Set(publicAddresses);
  }

  protected override classify(address: string): AddressVerdict {
    return this.publicAddresses.has(address) ? 'allowed' : super.classify(address);
  }
}
