import { BlockList, isIP } from 'node:net';
import { normalizeHost } from '../engine/egress/egress-policy.js';
import type { AuthConfig } from './auth.config.js';
import type { EnvironmentVariables } from './environment.dto.js';
import type { TrustProxy } from './trust-proxy.config.js';

export interface HttpConfig {
  /** The listen address: HOST, else 127.0.0.1 without authentication and 0.0.0.0 with it. */
  readonly host: string;
  readonly port: number;
  readonly workerPort: number;
  /**
   * AUTH_MODE=none on an address other hosts can reach, allowed by ALLOW_UNAUTHENTICATED_NETWORK:
   * the process warns about it every minute while it serves.
   */
  readonly unauthenticatedNetwork: boolean;
  /** TRUST_PROXY: false unless the operator names the proxies whose X-Forwarded-For counts. */
  readonly trustProxy: TrustProxy;
}

/** Without authentication every caller is the operator: by default only this machine may call. */
export const UNAUTHENTICATED_DEFAULT_HOST = '127.0.0.1';
/** With authentication every /v1 route needs a credential: any interface, as a container needs. */
export const AUTHENTICATED_DEFAULT_HOST = '0.0.0.0';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True when `host` can only be reached from this machine: `localhost`, 127.0.0.0/8 or ::1 (also
 * written bracketed, or as an IPv4-mapped IPv6 address). Any other name may resolve elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHost(host);
  if (name === 'localhost') return true;
  const family = isIP(name);
  if (family === 4) return LOOPBACK.check(name, 'ipv4');
  if (family === 6) return LOOPBACK.check(name, 'ipv6');
  return false;
}

/**
 * The HTTP section of the configuration. Returns the problems (each naming its variables)
 * instead of throwing, so the caller reports them with the rest.
 */
export function parseHttpConfig(
  vars: EnvironmentVariables,
  auth: AuthConfig,
): { http: Omit<HttpConfig, 'trustProxy'>; problems: string[] } {
  const unauthenticated = auth.mode === 'none';
  const host = vars.HOST ?? (unauthenticated ? UNAUTHENTICATED_DEFAULT_HOST : AUTHENTICATED_DEFAULT_HOST);
  const exposed = unauthenticated && !isLoopbackHost(host);
  const problems: string[] = [];
  if (exposed && vars.ALLOW_UNAUTHENTICATED_NETWORK !== true) {
    problems.push(
      `HOST: ${host} is reachable from other machines and AUTH_MODE=none makes every caller the operator; ` +
        'set ALLOW_UNAUTHENTICATED_NETWORK=true to serve it without authentication anyway, ' +
        `leave HOST unset to listen on ${UNAUTHENTICATED_DEFAULT_HOST}, or set AUTH_MODE=apikey or jwt`,
    );
  }
  return {
    http: { host, port: vars.PORT ?? 4006, workerPort: vars.WORKER_HTTP_PORT ?? 4007, unauthenticatedNetwork: exposed },
    problems,
  };
}
