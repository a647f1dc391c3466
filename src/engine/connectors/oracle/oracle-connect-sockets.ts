import { AsyncLocalStorage } from 'node:async_hooks';
import { channel } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/**
 * The sockets one connect attempt opens, so that an attempt given up on (abort, our deadline) can
 * be cut. node-oracledb hands over no connection until `getConnection` resolves, and its own
 * `connectTimeout` covers the Oracle Net handshake only, not the login that follows: a listener
 * that accepts the connection and then never answers the login would otherwise keep the socket
 * (and the pending driver call) for as long as the server keeps it open.
 *
 * Same mechanism as ssrf/egress-scope.ts: `net.connect` publishes each new client socket on the
 * `net.client.socket` diagnostics channel, synchronously, in the caller's async context; node-oracledb
 * 7 dials through `net.connect` (TLS is layered on that socket).
 */
const attempt = new AsyncLocalStorage<Set<Socket>>();
/** Held here: a channel nobody references may be collected with its subscribers. */
const clientSockets = channel('net.client.socket');
let subscribed = false;

function onClientSocket(message: unknown): void {
  const sockets = attempt.getStore();
  const socket = (message as { socket?: Socket } | undefined)?.socket;
  if (sockets !== undefined && socket !== undefined) sockets.add(socket);
}

/** Runs `work`, adding to `sockets` every socket it opens through `net.connect` (directly or not). */
export function trackSockets<T>(sockets: Set<Socket>, work: () => Promise<T>): Promise<T> {
  if (!subscribed) {
    clientSockets.subscribe(onClientSocket);
    subscribed = true;
  }
  return attempt.run(sockets, work);
}
