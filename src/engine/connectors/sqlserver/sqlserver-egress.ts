import type { Socket } from 'node:net';
import type { EgressPolicy } from '../../egress/egress-policy.js';
import { dialTarget } from '../../egress/egress-socket.js';

/** What tedious 19 passes a custom `options.connector` (see its `connectOnPort`). */
interface ConnectOptions {
  readonly host: string;
  readonly port: number;
}

/**
 * tedious' socket factory for one open. tedious asks it for the record's host first and, when
 * the server answers the login with a routing ENVCHANGE (Azure SQL gateways, availability group
 * read-only routing), for the host it was routed to. The record's host gets the checked address;
 * any other host is resolved and checked by the policy first, and a refused one is never dialled.
 * tedious keeps `server` (or the routed name) for TLS, so certificates are still verified
 * against names.
 */
export function egressConnector(egress: EgressPolicy): (options: ConnectOptions, lookup: unknown, signal: AbortSignal) => Promise<Socket> {
  return async (options, _lookup, signal) => {
    signal.throwIfAborted();
    const target = await egress.resolve(options.host);
    signal.throwIfAborted();
    return new Promise<Socket>((resolve, reject) => {
      const socket = dialTarget(target, options.port);
      const settle = (error?: unknown): void => {
        signal.removeEventListener('abort', onAbort);
        socket.removeListener('error', onError);
        socket.removeListener('connect', onConnect);
        if (error === undefined) return resolve(socket);
        socket.destroy();
        reject(error);
      };
      const onAbort = (): void => settle(signal.reason);
      const onError = (error: Error): void => settle(error);
      const onConnect = (): void => settle();
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', onError);
      socket.once('connect', onConnect);
    });
  };
}
