import { AsyncLocalStorage } from 'node:async_hooks';
import { channel } from 'node:diagnostics_channel';
import { isIP, type Socket } from 'node:net';
import type { EgressPolicy } from './egress-policy.js';
import { egressLookup } from './egress-socket.js';

/**
 * Egress checks for a driver that resolves names and follows redirects by itself and offers no
 * socket hook (node-oracledb thin: listener REDIRECT packets, address lists).
 *
 * The driver's work runs inside `runInEgressScope`. `net.connect` publishes every new client
 * socket on the `net.client.socket` diagnostics channel synchronously, before it calls
 * `socket.connect()`; for sockets created inside a scope that `connect` is replaced once:
 * - an IP destination is checked synchronously; a refused one is never dialled, the socket is
 *   destroyed with the refusal on the next tick (when the caller's listeners are attached);
 * - a name destination gets the policy's `lookup`, so only checked addresses are dialled;
 * - a local (IPC) path is refused.
 * Sockets outside any scope are untouched. Sockets made without `net.connect` (`new Socket()`
 * then `connect()`, or `tls.connect` without `socket`) are not seen: a driver run in a scope
 * must dial through `net.connect`, as node-oracledb 7 does (ntTcp.js, and http.request for a
 * proxy, whose agent uses it too).
 */
const scope = new AsyncLocalStorage<EgressPolicy>();
/** Held here: a channel nobody references may be collected with its subscribers. */
const clientSockets = channel('net.client.socket');
let subscribed = false;

interface ConnectOptions {
  host?: string;
  port?: number | string;
  path?: string;
  lookup?: unknown;
}

/** `connect(options[, cb])`, `connect(port[, host][, cb])`, `connect(path[, cb])`, or net's pre-normalised `[options, cb]`. */
function optionsOf(args: unknown[]): ConnectOptions | undefined {
  const [first, second] = args;
  if (Array.isArray(first)) return optionsOf(first);
  if (typeof first === 'object' && first !== null) return first as ConnectOptions;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { port: first, host: typeof second === 'string' ? second : 'localhost' };
  }
  if (typeof first === 'string') return { path: first };
  return undefined;
}

function refuse(socket: Socket, error: Error): Socket {
  // Whoever opened the socket attaches its 'error' listener after net.connect returns; the
  // no-op one keeps a socket nobody listens to from throwing.
  socket.on('error', () => undefined);
  process.nextTick(() => socket.destroy(error));
  return socket;
}

function guard(socket: Socket, egress: EgressPolicy): void {
  const connect = socket.connect;
  const guarded = function (this: Socket, ...args: unknown[]): Socket {
    const options = optionsOf(args);
    if (options === undefined || options.path !== undefined) {
      return refuse(this, new Error('this connection may only open TCP sockets'));
    }
    const host = options.host ?? 'localhost';
    if (isIP(host) !== 0) {
      try {
        egress.checkAddress(host);
      } catch (error) {
        return refuse(this, error as Error);
      }
    } else {
      options.lookup = egressLookup(egress);
    }
    return (connect as (...a: unknown[]) => Socket).apply(this, args);
  };
  socket.connect = guarded as Socket['connect'];
}

function onClientSocket(message: unknown): void {
  const egress = scope.getStore();
  const socket = (message as { socket?: Socket } | undefined)?.socket;
  if (egress !== undefined && socket !== undefined) guard(socket, egress);
}

/** Runs `work` with every `net.connect` it makes (directly or not) checked by `egress`. */
export function runInEgressScope<T>(egress: EgressPolicy, work: () => Promise<T>): Promise<T> {
  if (!subscribed) {
    clientSockets.subscribe(onClientSocket);
    subscribed = true;
  }
  return scope.run(egress, work);
}
