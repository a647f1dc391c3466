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
import type { FakeAnswer, FakeTdsServer, FakeTdsServerOptions } from './fake-tds-types.js';

/** The packet types a TDS client sends; anything else is not TDS. */
const CLIENT_PACKETS = new Set([PACKET.BATCH, PACKET.RPC, PACKET.ATTENTION, PACKET.LOGIN7, PACKET.PRELOGIN]);
export { catalogAnswer } from './fake-tds-types.js';

/**
 * A tiny TDS 7.4 server, enough for the real mssql/tedious client to log in, run statements and
 * cancel them: no SQL Server can run on this machine, and the connector's connect, streaming,
 * backpressure and cancel paths must still be exercised through the real driver. It does not
 * parse SQL: `answer` decides the result of each statement from its text.
 */
export type {
  FakeAnswer,
  FakeColumn,
  FakeColumnType,
  FakeTdsServer,
  FakeTdsServerOptions,
  FakeValue,
  ServerMessage,
} from './fake-tds-types.js';

export async function startFakeTdsServer(options: FakeTdsServerOptions = {}): Promise<FakeTdsServer> {
  const sockets = new Set<Socket>();
  const preloginContext = options.preloginTls && createSecureContext({ cert: options.preloginTls.cert, key: options.preloginTls.key });
  const state = {
    statements: [] as string[],
    declarations: [] as string[],
    batches: [] as string[],
    received: [] as string[],
    running: 0,
    attentions: 0,
    rowsSent: 0,
    connections: 0,
    logins: 0,
  };

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
    // The statement in progress ignores attentions (a server that no longer reads its socket).
    let deaf = false;
    // Wakes a result stalled mid-stream when its attention arrives.
    let wakeStalled: (() => void) | undefined;
    socket.on('close', () => {
      if (busy === 'hanging') state.running--;
      busy = 'idle';
      wakeStalled?.();
    });
    // Where replies go: the socket, or the TLS session negotiated inside the pre-login.
    let out: Socket = socket;
    let preloginTls: PreloginTls | undefined;

    const write = async (data: Buffer): Promise<void> => {
      if (socket.destroyed) throw new Error('closed');
      if (out.write(data)) return;
      // The listener of whichever event loses must come off: big results wait for many drains.
      const settled = new AbortController();
      try {
        await Promise.race([once(out, 'drain', { signal: settled.signal }), once(socket, 'close', { signal: settled.signal })]);
      } finally {
        settled.abort();
      }
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

    const stall = async (chunk: Buffer): Promise<void> => {
      if (chunk.length > 0) await write(packet(chunk, false));
      if (socket.destroyed) return;
      await new Promise<void>((resolve) => {
        wakeStalled = resolve;
      });
      wakeStalled = undefined;
    };

    const stream = async (answer: Extract<FakeAnswer, { columns: unknown }>): Promise<void> => {
      const { columns, rows } = answer;
      busy = 'streaming';
      deaf = answer.deaf === true;
      state.running++;
      let chunk = colMetadata(columns);
      let count = 0;
      let written = 0;
      try {
        for (const values of rows) {
          if (attention) break;
          if (count === answer.stallAfter) {
            await stall(chunk);
            chunk = Buffer.alloc(0);
            break;
          }
          chunk = Buffer.concat([chunk, row(columns, values)]);
          count++;
          state.rowsSent++;
          if (answer.stallAfterBytes !== undefined && written + chunk.length >= answer.stallAfterBytes) {
            const head = chunk.subarray(0, answer.stallAfterBytes - written);
            for (let o = 0; o < head.length; o += MAX_PACKET_DATA) await write(packet(head.subarray(o, o + MAX_PACKET_DATA), false));
            await stall(Buffer.alloc(0));
            // The rest of the row is never sent: the connection cannot be used again.
            socket.destroy();
            return;
          }
          // oxlint-disable-next-line no-unmodified-loop-condition -- the attention handler sets it while this loop awaits
          while (chunk.length >= MAX_PACKET_DATA && !attention) {
            await write(packet(chunk.subarray(0, MAX_PACKET_DATA), false));
            chunk = chunk.subarray(MAX_PACKET_DATA);
            written += MAX_PACKET_DATA;
          }
        }
        await write(packet(Buffer.concat([chunk, done(attention ? DONE.FINAL : DONE.COUNT, count)]), true));
        if (attention) await reply(done(DONE.ATTN));
      } catch {
        // the client went away
      } finally {
        attention = false;
        deaf = false;
        busy = 'idle';
        state.running--;
      }
    };

    const execute = async (sql: string): Promise<void> =>
      run(options.answer?.(sql) ?? { columns: [{ name: '', type: 'int' }], rows: [[1]] });

    const run = async (answer: FakeAnswer): Promise<void> => {
      if ('hang' in answer) {
        busy = 'hanging';
        deaf = answer.deaf === true;
        state.running++;
        return;
      }
      if ('error' in answer) return reply(Buffer.concat([errorToken(answer.error), done(DONE.ERROR)]));
      return stream(answer);
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
          if (options.route)
            return reply(Buffer.concat([routingEnvChange(options.route.server, options.route.port), loginAck(), done(DONE.FINAL)]));
          return reply(Buffer.concat([loginAck(), done(DONE.FINAL)]));
        case PACKET.BATCH: {
          // ALL_HEADERS (its length first), then the batch text
          const text = payload.subarray(payload.readUInt32LE(0)).toString('utf16le');
          state.batches.push(text);
          state.received.push(text);
          // tedious' initial SET statements, and any batch the test leaves unanswered: done
          const answer = options.batchAnswer?.(text);
          return answer === undefined ? reply(done(DONE.FINAL)) : run(answer);
        }
        case PACKET.RPC: {
          const [statement = '', declarations = ''] = rpcTexts(payload);
          state.statements.push(statement);
          state.received.push(statement);
          state.declarations.push(declarations);
          return execute(statement);
        }
      }
    };

    const onData = (data: Buffer): void => {
      pending = Buffer.concat([pending, data]);
      while (pending.length >= 8 && pending.length >= pending.readUInt16BE(2)) {
        const length = pending.readUInt16BE(2);
        const [type, status] = [pending[0], pending[1]];
        // Not TDS (a TLS ClientHello sent to a plain server, say): hang up, as SQL Server does.
        if (length < 8 || !CLIENT_PACKETS.has(type)) {
          socket.destroy();
          return;
        }
        message.push(pending.subarray(8, length));
        pending = pending.subarray(length);
        if ((status & 1) === 0) continue;
        const payload = Buffer.concat(message);
        message = [];
        if (type === PACKET.ATTENTION) {
          state.attentions++;
          if (deaf) continue;
          if (busy === 'streaming') {
            attention = true;
            wakeStalled?.();
          } else if (busy === 'hanging') {
            busy = 'idle';
            state.running--;
            void reply(done(DONE.FINAL)).then(
              () => reply(done(DONE.ATTN)),
              () => undefined,
            );
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
    batches: state.batches,
    received: state.received,
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
