import { AsyncLocalStorage } from 'node:async_hooks';
import { isIP, Socket } from 'node:net';
import type { EgressPolicy } from './egress-policy.js';
import { egressLookup } from './egress-socket.js';

/**
 * Egress checks for a driver that resolves names and follows redirects by itself and offers no
 * socket hook (node-oracledb thin: listener REDIRECT packets, address lists).
 *
 * The driver's work runs inside `runInEgressScope`. The first scope wraps `Socket.prototype.connect`
 * once; a connect made inside a scope (net.connect, `new Socket().connect()`, tls.connect, an HTTP
 * agent's socket) is checked before anything is dialled:
 * - an IP destination is checked synchronously; a refused one is never dialled, the socket is
 *   destroyed with the refusal on the next tick (when the caller's listeners are attached);
 * - a name destination gets the policy's `lookup`, so only checked addresses are dialled;
 * - a local (IPC) path is refused.
 * A connect outside any scope goes straight to Node's own. (Node.js 20 published every
 * net.connect socket on the `net.client.socket` diagnostics channel before dialling, which let one
 * socket at a time be wrapped; from Node.js 22 that message comes from inside `connect`, too late.)
 */
const scope = new AsyncLocalStorage<EgressPolicy>();
const unguardedConnect = Socket.prototype.connect;

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

/** Socket.prototype.connect inside a scope: checks the destination, then dials through Node's own. */
function guardedConnect(this: Socket, ...args: unknown[]): Socket {
  const egress = scope.getStore();
  if (egress === undefined) return (unguardedConnect as (...a: unknown[]) => Socket).apply(this, args);
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
    return (unguardedConnect as (...a: unknown[]) => Socket).apply(this, args);
  }
  // Node's own normalised arguments ([options, cb], from net.connect) are its copy to change;
  // any other form is dialled as an options object of our own, so a caller's object is untouched.
  if (Array.isArray(args[0])) {
    options.lookup = egressLookup(egress);
    return (unguardedConnect as (...a: unknown[]) => Socket).apply(this, args);
  }
  const callback = args.find((arg) => typeof arg === 'function');
  const guarded = { ...options, host, lookup: egressLookup(egress) };
  return (unguardedConnect as (...a: unknown[]) => Socket).call(this, guarded, ...(callback ? [callback] : []));
}

/** Runs `work` with every socket connect it makes (directly or not) checked by `egress`. */
export function runInEgressScope<T>(egress: EgressPolicy, work: () => Promise<T>): Promise<T> {
  if (Socket.prototype.connect !== guardedConnect) Socket.prototype.connect = guardedConnect as Socket['connect'];
  return scope.run(egress, work);
}
