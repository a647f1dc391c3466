import type { LookupOptions } from 'node:dns';
import { connect, type LookupFunction, type Socket } from 'node:net';
import type { EgressPolicy, EgressTarget } from './egress-policy.js';

/**
 * A `lookup` for node sockets (net.connect's option) that never asks DNS about the record's
 * host again: it answers the pinned address, and any other name is resolved and checked by the
 * policy. Handles both callback shapes (`all` is what autoSelectFamily asks for).
 */
export function egressLookup(egress: EgressPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions | number | undefined, callback: Parameters<LookupFunction>[2]) => {
    const all = typeof options === 'object' && options !== null && options.all === true;
    const answer = (target: EgressTarget): void => {
      if (all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    egress.resolve(hostname).then(answer, (error: Error) => callback(error as NodeJS.ErrnoException, '', 0));
  };
}

/** A TCP socket to the checked address of the record's host (no name resolution at all). */
export function dialTarget(target: EgressTarget, port: number, keepAliveInitialDelayMs?: number): Socket {
  const socket = connect({ host: target.address, port, family: target.family, noDelay: true });
  if (keepAliveInitialDelayMs !== undefined) socket.setKeepAlive(true, keepAliveInitialDelayMs);
  return socket;
}
