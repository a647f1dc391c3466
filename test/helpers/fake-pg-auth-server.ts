import { createServer, type Server, type Socket } from 'node:net';

/**
 * A PostgreSQL wire-protocol peer that asks for a password and refuses it with SQLSTATE 28P01,
 * as a server with password authentication does. The local test server trusts every login, so
 * this is how a wrong password is provoked over a real socket.
 */
export async function startFakePgAuthServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let stage: 'startup' | 'password' = 'startup';
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (stage === 'startup' && buffered.length >= 8) {
        const length = buffered.readInt32BE(0);
        if (buffered.length < length) return;
        if (buffered.readInt32BE(4) === 80877103) {
          // SSLRequest: not supported here.
          socket.write('N');
          buffered = buffered.subarray(length);
          return;
        }
        buffered = buffered.subarray(length);
        stage = 'password';
        const auth = Buffer.alloc(9);
        auth.write('R', 0);
        auth.writeInt32BE(8, 1);
        auth.writeInt32BE(3, 5); // AuthenticationCleartextPassword
        socket.write(auth);
      } else if (stage === 'password' && buffered.length >= 5 && buffered[0] === 0x70) {
        const fields = Buffer.concat(
          [['S', 'FATAL'], ['V', 'FATAL'], ['C', '28P01'], ['M', 'password authentication failed for user "someone"']].map(([type, text]) =>
            Buffer.concat([Buffer.from(type), Buffer.from(text), Buffer.from([0])]),
          ),
        );
        const body = Buffer.concat([fields, Buffer.from([0])]);
        const header = Buffer.alloc(5);
        header.write('E', 0);
        header.writeInt32BE(body.length + 4, 1);
        socket.end(Buffer.concat([header, body]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
