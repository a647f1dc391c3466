import { createServer, type Server, type Socket } from 'node:net';

export interface FakePgCatalogServer {
  readonly host: string;
  readonly port: number;
  /** TCP connections accepted. */
  readonly connections: number;
  /** Connections still open now. */
  readonly open: number;
  /** Bytes of catalog rows written, over all connections. */
  readonly catalogBytes: number;
  /** Resolves once no connection is open (at once when none is). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;

const cstring = (text: string) => Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

function int16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value);
  return buffer;
}

/** RowDescription of `names`, every column text (OID 25). */
function rowDescription(names: readonly string[]): Buffer {
  const fields = names.map((name) => Buffer.concat([cstring(name), int32(0), int16(0), int32(25), int16(-1), int32(-1), int16(0)]));
  return message('T', Buffer.concat([int16(names.length), ...fields]));
}

function dataRow(values: readonly (string | null)[]): Buffer {
  const fields = values.map((value) => {
    if (value === null) return int32(-1);
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([int32(bytes.length), bytes]);
  });
  return message('D', Buffer.concat([int16(values.length), ...fields]));
}

const READY = message('Z', Buffer.from('I'));
const CATALOG_COLUMNS = [
  'nspname',
  'relname',
  'attname',
  'data_type',
  'base_oid',
  'typcategory',
  'element_oid',
  'element_delimiter',
  'cast_type',
  'pk_position',
];

/** The answer to the session setup query of the PostgreSQL connector: every setting as asked, UTF8, a pid. */
function setupAnswer(): Buffer {
  const values = ['UTC', 'ISO, YMD', 'iso_8601', '1', 'hex', 'UTF8', 'UTF8', '4242'];
  return Buffer.concat([rowDescription(values.map((_, i) => `c${i}`)), dataRow(values), message('C', cstring('SELECT 1')), READY]);
}

/** About 64 KiB of catalog rows, every table and column name new: what costs a reader the most to keep. */
function catalogChunk(chunk: number): Buffer {
  const rows: Buffer[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 64 * 1024; i++) {
    const row = dataRow([
      'public',
      `t${chunk}_${Math.floor(i / 50)}`,
      `column_${chunk}_${i}`,
      'integer',
      '23',
      'N',
      null,
      null,
      'integer',
      i % 50 === 0 ? '1' : null,
    ]);
    rows.push(row);
    bytes += row.length;
  }
  return Buffer.concat(rows);
}

/**
 * A PostgreSQL wire-protocol peer that accepts any login (AuthenticationOk), answers the
 * connector's session setup, and answers the schema discovery query with a catalog that never
 * ends: RowDescription, then DataRow messages for as long as the client reads them (written with
 * backpressure, so the server itself holds one chunk at a time). Any other extended-protocol
 * statement (a cancel's `pg_cancel_backend`) gets one row `t`. `host` may be any loopback address
 * (127.0.0.2 …), so a test can give it a per-host cap of its own.
 */
export async function startFakePgCatalogServer(host = '127.0.0.1'): Promise<FakePgCatalogServer> {
  const sockets = new Set<Socket>();
  const idleWaiters: (() => void)[] = [];
  let connections = 0;
  let catalogBytes = 0;

  const streamCatalog = async (socket: Socket) => {
    socket.write(Buffer.concat([message('1', Buffer.alloc(0)), message('2', Buffer.alloc(0)), rowDescription(CATALOG_COLUMNS)]));
    for (let chunk = 0; !socket.destroyed && socket.writable; chunk++) {
      const bytes = catalogChunk(chunk);
      catalogBytes += bytes.length;
      if (!socket.write(bytes)) {
        await new Promise<void>((resolve) => {
          socket.once('drain', resolve);
          socket.once('close', resolve);
        });
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  };

  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const wake of idleWaiters.splice(0)) wake();
    });
    let started = false;
    let buffered = Buffer.alloc(0);
    let extended: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) return;
          const code = buffered.readInt32BE(4);
          buffered = buffered.subarray(length);
          if (code === SSL_REQUEST) {
            socket.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) {
            socket.end();
            return;
          }
          started = true;
          const parameters = [
            ['server_version', '16.0'],
            ['server_encoding', 'UTF8'],
            ['client_encoding', 'UTF8'],
            ['standard_conforming_strings', 'on'],
            ['integer_datetimes', 'on'],
          ].map(([name, value]) => message('S', Buffer.concat([cstring(name), cstring(value)])));
          socket.write(Buffer.concat([message('R', int32(0)), ...parameters, message('K', Buffer.concat([int32(4242), int32(7)])), READY]));
          continue;
        }
        if (buffered.length < 5) return;
        const type = String.fromCharCode(buffered[0]);
        const length = buffered.readInt32BE(1);
        if (buffered.length < 1 + length) return;
        const body = buffered.subarray(5, 1 + length);
        buffered = buffered.subarray(1 + length);
        if (type === 'Q') {
          socket.write(setupAnswer());
        } else if (type === 'P') {
          // Parse: the statement name, then its text.
          const name = body.indexOf(0);
          extended = body.subarray(name + 1, body.indexOf(0, name + 1)).toString('utf8');
        } else if (type === 'S') {
          if (extended?.includes('pg_catalog.pg_attribute')) {
            void streamCatalog(socket);
          } else {
            socket.write(
              Buffer.concat([
                message('1', Buffer.alloc(0)),
                message('2', Buffer.alloc(0)),
                rowDescription(['result']),
                dataRow(['t']),
                message('C', cstring('SELECT 1')),
                READY,
              ]),
            );
          }
          extended = undefined;
        } else if (type === 'X') {
          socket.end();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return {
    host,
    port: typeof address === 'object' && address ? address.port : 0,
    get connections() {
      return connections;
    },
    get open() {
      return sockets.size;
    },
    get catalogBytes() {
      return catalogBytes;
    },
    idle: () => (sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
