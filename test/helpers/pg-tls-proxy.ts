import { connect, createServer, type Server, type Socket } from 'node:net';
import { TLSSocket, createSecureContext } from 'node:tls';

export interface PgTlsProxy {
  readonly port: number;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;

/**
 * A TLS-terminating proxy in front of a PostgreSQL server that has no TLS of its own (the local test
 * server): it accepts the client's SSLRequest, upgrades the socket with `cert`/`key`, and forwards
 * the decrypted protocol to the server. So a client reads real query results over a real TLS socket.
 */
export async function startPgTlsProxy(target: { host: string; port: number }, tls: { cert: string; key: string }): Promise<PgTlsProxy> {
  const sockets = new Set<Socket>();
  const context = createSecureContext({ cert: tls.cert, key: tls.key });
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    client.once('data', (first: Buffer) => {
      if (first.length < 8 || first.readInt32BE(4) !== SSL_REQUEST) {
        client.destroy();
        return;
      }
      client.write('S');
      const secure = new TLSSocket(client, { isServer: true, secureContext: context });
      const upstream = connect(target.port, target.host);
      track(secure);
      track(upstream);
      secure.pipe(upstream).pipe(secure);
      secure.on('close', () => upstream.destroy());
      upstream.on('close', () => secure.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('TLS proxy has no port');
  return {
    port: address.port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
