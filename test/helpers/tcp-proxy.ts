import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Client connections it holds now, the most it held at once, and all it accepted. */
  readonly open: number;
  readonly peak: number;
  readonly total: number;
  /** Drops every open connection and refuses new ones, as a dead host would. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  /**
   * Keeps every connection (and accepts new ones) but forwards nothing in either direction: a
   * server that took the login and then went silent. `resume()` forwards again.
   */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** Address it listens on (any loopback alias); default 127.0.0.1. */
  readonly listenHost?: string;
  /** Told +1 when a client connects and -1 when it goes, e.g. to count across several proxies. */
  readonly onChange?: (delta: 1 | -1) => void;
  /**
   * Once a chunk the client sends matches, that connection forwards nothing more either way (the
   * chunk included) but stays open: a server that took the login and then never answers, e.g.
   * `(chunk) => chunk.includes('pg_namespace')` for a catalog query. Matched on single chunks,
   * which is how a driver's one small message arrives over loopback.
   */
  readonly silenceWhen?: (clientChunk: Buffer) => boolean;
  /**
   * Changes what the client sends before the server sees it (keep the length, or the protocol's
   * framing breaks): e.g. turn `COPY (` into `COPX (` to play a server that has no COPY.
   */
  readonly rewriteClient?: (clientChunk: Buffer) => Buffer;
}

/**
 * A TCP forwarder to targetHost:targetPort that a test can cut and restore, to make a database,
 * Redis or the broker disappear for one process without touching the machine's shared services,
 * and that counts the connections it carries.
 */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1', options: TcpProxyOptions = {}): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  let stalled = false;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let open = 0;
  let peak = 0;
  let total = 0;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    open += 1;
    total += 1;
    peak = Math.max(peak, open);
    options.onChange?.(1);
    const upstream = connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    let dropped = false;
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      if (dropped) return;
      dropped = true;
      open -= 1;
      options.onChange?.(-1);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    const silenceWhen = options.silenceWhen ?? (() => false);
    const rewrite = options.rewriteClient ?? ((chunk: Buffer) => chunk);
    let silent = false;
    // Forwarded by hand rather than piped: a pipe resumes its source whenever the destination
    // drains, which would undo stall() as soon as the client has read what it holds.
    const forward = (from: Socket, to: Socket, transform: (chunk: Buffer) => Buffer) => {
      from.on('data', (chunk: Buffer) => {
        if (from === client) silent ||= silenceWhen(chunk);
        if (!silent && !to.write(transform(chunk))) from.pause();
      });
      to.on('drain', () => {
        if (!stalled) from.resume();
      });
    };
    forward(client, upstream, rewrite);
    forward(upstream, client, (chunk) => chunk);
    if (stalled) {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, options.listenHost ?? '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    get open() {
      return open;
    },
    get peak() {
      return peak;
    },
    get total() {
      return total;
    },
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      cut = false;
    },
    stall() {
      stalled = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      stalled = false;
      for (const { client, upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut = true;
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
