import { FetcherError } from '../errors/fetcher-error.js';
import { forbiddenOnward } from './egress-errors.js';

/** A host name (or IP literal) with the one address it was checked and pinned to. */
export interface EgressTarget {
  /** The name as the record gives it, normalised: what TLS verifies (SNI, certificate identity). */
  readonly host: string;
  /** The checked address: the only one a driver may dial for `host`. */
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * What a connector may reach during one open(). A connector dials `target.address` for the
 * record's host, and asks `resolve` or `checkAddress` before any other socket (redirects,
 * routing, replica set members).
 */
export interface EgressPolicy {
  readonly target: EgressTarget;
  /** Throws (FET-0414) unless `ip` is an IP literal the policy allows. Synchronous: usable right before a dial. */
  checkAddress(ip: string): void;
  /** The record's host answers `target` again (never a new lookup); another host is resolved once and checked. */
  resolve(host: string): Promise<EgressTarget>;
}

/** Lower case, no brackets, no trailing dot: `DB.Example.COM.` and `db.example.com` are one host. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** The checks EgressGuard offers, as the per-open policy needs them. */
export interface EgressChecks {
  checkAddress(ip: string): void;
  resolveTarget(host: string, configName: string): Promise<EgressTarget>;
}

/**
 * The policy of one open(). It remembers the first refusal, because drivers wrap or replace the
 * error a socket failed with (tedious says "Could not connect", oracledb NJS-503): the caller
 * reports that refusal instead of whatever the driver made of it.
 */
export class ScopedEgress implements EgressPolicy {
  private firstFailure: Error | undefined;

  constructor(
    readonly target: EgressTarget,
    private readonly checks: EgressChecks,
    private readonly configName: string,
  ) {}

  /** The first refusal or resolution failure met during this open, if any. */
  get failure(): Error | undefined {
    return this.firstFailure;
  }

  checkAddress(ip: string): void {
    try {
      this.checks.checkAddress(ip);
    } catch {
      throw this.remember(forbiddenOnward(this.configName));
    }
  }

  async resolve(host: string): Promise<EgressTarget> {
    if (normalizeHost(host) === this.target.host) return this.target;
    try {
      return await this.checks.resolveTarget(host, this.configName);
    } catch (error) {
      throw this.remember(error instanceof FetcherError ? forbiddenOnward(this.configName) : (error as Error));
    }
  }

  private remember(error: Error): Error {
    this.firstFailure ??= error;
    return error;
  }
}
