import { createServer, type Server, type Socket } from 'node:net';

/** A TCP listener that only counts the connections it receives (and optionally answers them). */
export interface CountingListener {
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  close(): Promise<void>;
}

/** Listens on `host` (a loopback address), on `port` or an ephemeral one; hangs up on every client unless `onConnection` takes it. */
export async function startCountingListener(
  host = '127.0.0.1',
  options: { readonly port?: number; readonly onConnection?: (socket: Socket) => void } = {},
): Promise<CountingListener> {
  const { onConnection } = options;
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (onConnection) onConnection(socket);
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    host,
    port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
