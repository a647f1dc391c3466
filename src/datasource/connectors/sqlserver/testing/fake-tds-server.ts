import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { createSecureContext, createServer as createTlsServer } from 'node:tls';
import {
  PACKET,
  ENCRYPTION,
  DONE,
  MAX_PACKET_DATA,
  done,
  errorToken,
  loginAck,
  routingEnvChange,
  preloginReply,
  colMetadata,
  row,
  rpcTexts,
} from './fake-tds-tokens.js';
import { negotiateInsidePrelogin, type PreloginTls } from './fake-tds-tls.js';

/**
 * A tiny TDS 7.4 server, enough for the real mssql/tedious client to log in, run statements and
 * cancel them: no SQL Server can run on this machine, and the connector's connect, streaming,
 * backpressure and cancel paths must still be exercised through the real driver. It does not
 * parse SQL: `answer` decides the result of each statement from its text.
 */
export type FakeColumnType = 'int' | 'nvarchar' | 'bit' | 'varbinary' | 'float';
export interface FakeColumn {
  readonly name: string;
  readonly type: FakeColumnType;
}
export type FakeValue = number | string | boolean | Buffer | null;
export interface ServerMessage {
  readonly number: number;
  readonly message: string;
}
export type FakeAnswer =
  | { readonly columns: readonly FakeColumn[]; readonly rows: Iterable<readonly FakeValue[]> }
  | { readonly error: ServerMessage }
  /** Never answers (WAITFOR, a lock wait…) until the client cancels. */
  | { readonly hang: true };

export interface FakeTdsServerOptions {
  /** The pre-login ENCRYPTION answer (default NOT_SUP: no TLS). */
  readonly encryption?: 'OFF' | 'ON' | 'NOT_SUP' | 'REQ';
  /** The login fails with these server messages (in order), as SQL Server sends them. */
  readonly loginErrors?: readonly ServerMessage[];
  /** TDS 8.0 (`encrypt: 'strict'`): TLS from the first byte, with this certificate. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** TDS 7.x (`encrypt: true`): answers ENCRYPTION ON and negotiates TLS inside the pre-login, with this certificate. */
  readonly preloginTls?: { readonly cert: string; readonly key: string };
  /** Accepts connections and never says a word. */
  readonly silent?: boolean;
  /** Loopback address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** The login is answered with a routing ENVCHANGE (type 20) sending the client to this server, as Azure SQL gateways do. */
  readonly route?: { readonly server: string; readonly port: number };
  readonly answer?: (sql: string) => FakeAnswer;
}

export interface FakeTdsServer {
  readonly port: number;
  /** TCP connections accepted. */
  readonly connections: number;
  /** LOGIN7 packets received (user name and password travel in them). */
  readonly logins: number;
  /** Statement texts received (RPC sp_executesql), in order. */
  readonly statements: string[];
  /** The parameter declarations sent with each statement (`@p1 nvarchar(max), …`). */
  readonly declarations: string[];
  /** Statements whose result is still being produced (or hanging). */
  readonly running: number;
  readonly attentions: number;
  readonly rowsSent: number;
  /** Drops every client connection, as a server killing its sessions does. */
  killConnections(): void;
  close(): Promise<void>;
}

export async function startFakeTdsServer(options: FakeTdsServerOptions = {}): Promise<FakeTdsServer> {
  const sockets = new Set<Socket>();
  const preloginContext = options.preloginTls && createSecureContext({ cert: options.preloginTls.cert, key: options.preloginTls.key });
  const state = { statements: [] as string[], declarations: [] as string[], running: 0, attentions: 0, rowsSent: 0, connections: 0, logins: 0 };

  const handle = (socket: Socket): void => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (options.silent) return;
    let pending = Buffer.alloc(0);
    let message: Buffer[] = [];
    let attention = false;
    let busy: 'idle' | 'streaming' | 'hanging' = 'idle';
    // Where replies go: the socket, or the TLS session negotiated inside the pre-login.
    let out: Socket = socket;
    let preloginTls: PreloginTls | undefined;

    const write = async (data: Buffer): Promise<void> => {
      if (socket.destroyed) throw new Error('closed');
      if (!out.write(data)) await Promise.race([once(out, 'drain'), once(socket, 'close')]);
    };
    const packet = (data: Buffer, last: boolean) => {
      const header = Buffer.from([PACKET.REPLY, last ? 1 : 0, 0, 0, 0, 0, 1, 0]);
      header.writeUInt16BE(data.length + 8, 2);
      return Buffer.concat([header, data]);
    };
    const reply = async (data: Buffer): Promise<void> => {
      for (let o = 0; o < data.length || o === 0; o += MAX_PACKET_DATA) {
        await write(packet(data.subarray(o, o + MAX_PACKET_DATA), o + MAX_PACKET_DATA >= data.length));
      }
    };

    const stream = async (columns: readonly FakeColumn[], rows: Iterable<readonly FakeValue[]>): Promise<void> => {
      busy = 'streaming';
      state.running++;
      let chunk = colMetadata(columns);
      let count = 0;
      try {
        for (const values of rows) {
          if (attention) break;
          chunk = Buffer.concat([chunk, row(columns, values)]);
          count++;
          state.rowsSent++;
          while (chunk.length >= MAX_PACKET_DATA && !attention) {
            await write(packet(chunk.subarray(0, MAX_PACKET_DATA), false));
            chunk = chunk.subarray(MAX_PACKET_DATA);
          }
        }
        await write(packet(Buffer.concat([chunk, done(attention ? DONE.FINAL : DONE.COUNT, count)]), true));
        if (attention) await reply(done(DONE.ATTN));
      } catch {
        // the client went away
      } finally {
        attention = false;
        busy = 'idle';
        state.running--;
      }
    };

    const execute = async (sql: string): Promise<void> => {
      const answer = options.answer?.(sql) ?? { columns: [{ name: '', type: 'int' }], rows: [[1]] };
      if ('hang' in answer) {
        busy = 'hanging';
        state.running++;
        return;
      }
      if ('error' in answer) return reply(Buffer.concat([errorToken(answer.error), done(DONE.ERROR)]));
      return stream(answer.columns, answer.rows);
    };

    const onMessage = async (type: number, payload: Buffer): Promise<void> => {
      switch (type) {
        case PACKET.PRELOGIN:
          if (preloginTls !== undefined) return preloginTls.feed(payload);
          if (preloginContext !== undefined) {
            preloginTls = negotiateInsidePrelogin(socket, preloginContext, (secure) => {
              out = secure;
              secure.on('data', onData);
            });
            return reply(preloginReply(ENCRYPTION.ON));
          }
          return reply(preloginReply(ENCRYPTION[options.encryption ?? 'NOT_SUP']));
        case PACKET.LOGIN7:
          state.logins++;
          if (options.loginErrors?.length) return reply(Buffer.concat([...options.loginErrors.map(errorToken), done(DONE.ERROR)]));
          if (options.route) return reply(Buffer.concat([routingEnvChange(options.route.server, options.route.port), loginAck(), done(DONE.FINAL)]));
          return reply(Buffer.concat([loginAck(), done(DONE.FINAL)]));
        case PACKET.BATCH:
          // tedious' initial SET statements
          return reply(done(DONE.FINAL));
        case PACKET.RPC: {
          const [statement = '', declarations = ''] = rpcTexts(payload);
          state.statements.push(statement);
          state.declarations.push(declarations);
          return execute(statement);
        }
      }
    };

    const onData = (data: Buffer): void => {
      pending = Buffer.concat([pending, data]);
      while (pending.length >= 8 && pending.length >= pending.readUInt16BE(2)) {
        const length = pending.readUInt16BE(2);
        // Not TDS (a TLS ClientHello sent to a plain server, say): hang up, as SQL Server does.
        if (length < 8) {
          socket.destroy();
          return;
        }
        const [type, status] = [pending[0], pending[1]];
        message.push(pending.subarray(8, length));
        pending = pending.subarray(length);
        if ((status & 1) === 0) continue;
        const payload = Buffer.concat(message);
        message = [];
        if (type === PACKET.ATTENTION) {
          state.attentions++;
          if (busy === 'streaming') attention = true;
          else if (busy === 'hanging') {
            busy = 'idle';
            state.running--;
            void reply(done(DONE.FINAL)).then(() => reply(done(DONE.ATTN)), () => undefined);
          } else void reply(done(DONE.ATTN)).catch(() => undefined);
          continue;
        }
        // The TLS handshake goes on synchronously: its records must not wait behind other messages.
        if (type === PACKET.PRELOGIN && preloginTls !== undefined) preloginTls.feed(payload);
        else void onMessage(type, payload).catch(() => undefined);
      }
    };
    socket.on('data', onData);
  };

  const server: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handle) : createServer(handle);
  server.listen(0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    port,
    statements: state.statements,
    declarations: state.declarations,
    get running() {
      return state.running;
    },
    get attentions() {
      return state.attentions;
    },
    get rowsSent() {
      return state.rowsSent;
    },
    get connections() {
      return state.connections;
    },
    get logins() {
      return state.logins;
    },
    killConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
