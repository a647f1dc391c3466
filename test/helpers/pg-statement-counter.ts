import { connect, createServer, type Server, type Socket } from 'node:net';

export interface PgStatementCounter {
  /** Port to point a PostgreSQL client at (e.g. in DATABASE_URL) instead of the server's. */
  readonly port: number;
  /** The statements clients ran since the last reset, in order: simple queries and extended-protocol executions. */
  readonly statements: readonly string[];
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_ENC_REQUEST = 80877104;

/**
 * A TCP forwarder to a PostgreSQL server that reads the frontend protocol of every connection and
 * counts what the server is asked to run: each simple Query ('Q') and each Execute ('E') of the
 * extended protocol, with the text parsed for it. A test's count of store work, independent of the
 * server's configuration (pg_stat_statements needs a preload and a restart).
 */
export async function startPgStatementCounter(targetPort: number, targetHost = '127.0.0.1'): Promise<PgStatementCounter> {
  const statements: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    const read = frontendReader((statement) => statements.push(statement));
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => {
      read(chunk);
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    statements,
    reset: () => void statements.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A parser of one connection's client → server bytes, however they are split into chunks. */
function frontendReader(ran: (statement: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let startup = true;
  let parsed = '';
  const text = (body: Buffer, from: number) => body.toString('utf8', from, body.indexOf(0, from));
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (startup) {
        // Untyped: length, then the protocol code (or an SSL / GSS encryption request before it).
        if (pending.length < 8 || pending.length < pending.readInt32BE(0)) return;
        const code = pending.readInt32BE(4);
        pending = pending.subarray(pending.readInt32BE(0));
        if (code !== SSL_REQUEST && code !== GSS_ENC_REQUEST) startup = false;
        continue;
      }
      if (pending.length < 5 || pending.length < pending.readInt32BE(1) + 1) return;
      const type = String.fromCharCode(pending[0]);
      const body = pending.subarray(5, pending.readInt32BE(1) + 1);
      pending = pending.subarray(pending.readInt32BE(1) + 1);
      if (type === 'Q') ran(text(body, 0));
      else if (type === 'P') parsed = text(body, body.indexOf(0) + 1);
      else if (type === 'E') ran(parsed);
    }
  };
}
