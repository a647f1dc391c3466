import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

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
  /** Accepts connections and never says a word. */
  readonly silent?: boolean;
  /** Loopback address to listen on (default 127.0.0.1). */
  readonly host?: string;
  readonly answer?: (sql: string) => FakeAnswer;
}

export interface FakeTdsServer {
  readonly port: number;
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

const PACKET = { BATCH: 0x01, RPC: 0x03, REPLY: 0x04, ATTENTION: 0x06, LOGIN7: 0x10, PRELOGIN: 0x12 };
const ENCRYPTION = { OFF: 0, ON: 1, NOT_SUP: 2, REQ: 3 };
const DONE = { FINAL: 0x00, ERROR: 0x02, COUNT: 0x10, ATTN: 0x20 };
/** SQL_Latin1_General_CP1_CI_AS */
const COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);
const MAX_PACKET_DATA = 4096 - 8;

const u8 = (n: number) => Buffer.from([n]);
const u16 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const bVarChar = (s: string) => Buffer.concat([u8(s.length), Buffer.from(s, 'utf16le')]);
const usVarChar = (s: string) => Buffer.concat([u16(s.length), Buffer.from(s, 'utf16le')]);

function done(status: number, rowCount = 0): Buffer {
  const b = Buffer.alloc(13);
  b.writeUInt8(0xfd, 0);
  b.writeUInt16LE(status, 1);
  b.writeBigUInt64LE(BigInt(rowCount), 5);
  return b;
}

function errorToken({ number, message }: ServerMessage): Buffer {
  const body = Buffer.concat([u32(number), u8(1), u8(14), usVarChar(message), bVarChar('fake'), bVarChar(''), u32(1)]);
  return Buffer.concat([u8(0xaa), u16(body.length), body]);
}

function loginAck(): Buffer {
  const version = Buffer.from([0x74, 0x00, 0x00, 0x04]);
  const body = Buffer.concat([u8(1), version, bVarChar('Fake SQL Server'), Buffer.from([16, 0, 0, 1])]);
  return Buffer.concat([u8(0xad), u16(body.length), body]);
}

function preloginReply(encryption: number): Buffer {
  const version = Buffer.from([16, 0, 0x10, 0x00, 0, 0]);
  const options = 2 * 5 + 1;
  return Buffer.concat([
    Buffer.from([0x00]), Buffer.from([0, options, 0, version.length]),
    Buffer.from([0x01]), Buffer.from([0, options + version.length, 0, 1]),
    Buffer.from([0xff]), version, u8(encryption),
  ]);
}

function typeInfo(type: FakeColumnType): Buffer {
  switch (type) {
    case 'int':
      return Buffer.from([0x26, 4]);
    case 'bit':
      return Buffer.from([0x68, 1]);
    case 'float':
      return Buffer.from([0x6d, 8]);
    case 'varbinary':
      return Buffer.concat([u8(0xa5), u16(8000)]);
    case 'nvarchar':
      return Buffer.concat([u8(0xe7), u16(8000), COLLATION]);
  }
}

function colMetadata(columns: readonly FakeColumn[]): Buffer {
  const parts = columns.map((c) => Buffer.concat([u32(0), u16(0x0001), typeInfo(c.type), bVarChar(c.name)]));
  return Buffer.concat([u8(0x81), u16(columns.length), ...parts]);
}

function value(type: FakeColumnType, v: FakeValue): Buffer {
  if (type === 'nvarchar' || type === 'varbinary') {
    if (v === null) return u16(0xffff);
    const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), type === 'nvarchar' ? 'utf16le' : 'utf8');
    return Buffer.concat([u16(bytes.length), bytes]);
  }
  if (v === null) return u8(0);
  if (type === 'bit') return Buffer.from([1, v ? 1 : 0]);
  const b = Buffer.alloc(type === 'float' ? 9 : 5);
  b.writeUInt8(type === 'float' ? 8 : 4, 0);
  if (type === 'float') b.writeDoubleLE(Number(v), 1);
  else b.writeInt32LE(Number(v), 1);
  return b;
}

const row = (columns: readonly FakeColumn[], values: readonly FakeValue[]) =>
  Buffer.concat([u8(0xd1), ...columns.map((c, i) => value(c.type, values[i] ?? null))]);

/** The nvarchar parameters of an sp_executesql RPC: the statement, then the declarations. */
function rpcTexts(payload: Buffer): string[] {
  let o = payload.readUInt32LE(0);
  const nameLength = payload.readUInt16LE(o);
  o += 2 + (nameLength === 0xffff ? 2 : nameLength * 2) + 2;
  const texts: string[] = [];
  while (o < payload.length && texts.length < 2) {
    o += 1 + payload.readUInt8(o) * 2 + 1;
    if (payload.readUInt8(o) !== 0xe7) break;
    const max = payload.readUInt16LE(o + 1);
    o += 1 + 2 + 5;
    if (max === 0xffff) {
      const chunks: Buffer[] = [];
      o += 8;
      for (let n = payload.readUInt32LE(o); n !== 0; n = payload.readUInt32LE(o)) {
        chunks.push(payload.subarray(o + 4, o + 4 + n));
        o += 4 + n;
      }
      o += 4;
      texts.push(Buffer.concat(chunks).toString('utf16le'));
    } else {
      const length = payload.readUInt16LE(o);
      texts.push(payload.subarray(o + 2, o + 2 + length).toString('utf16le'));
      o += 2 + length;
    }
  }
  return texts;
}

export async function startFakeTdsServer(options: FakeTdsServerOptions = {}): Promise<FakeTdsServer> {
  const sockets = new Set<Socket>();
  const state = { statements: [] as string[], declarations: [] as string[], running: 0, attentions: 0, rowsSent: 0 };

  const handle = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (options.silent) return;
    let pending = Buffer.alloc(0);
    let message: Buffer[] = [];
    let attention = false;
    let busy: 'idle' | 'streaming' | 'hanging' = 'idle';

    const write = async (data: Buffer): Promise<void> => {
      if (socket.destroyed) throw new Error('closed');
      if (!socket.write(data)) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
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
          return reply(preloginReply(ENCRYPTION[options.encryption ?? 'NOT_SUP']));
        case PACKET.LOGIN7:
          if (options.loginErrors?.length) return reply(Buffer.concat([...options.loginErrors.map(errorToken), done(DONE.ERROR)]));
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

    socket.on('data', (data: Buffer) => {
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
        void onMessage(type, payload).catch(() => undefined);
      }
    });
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
    killConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
