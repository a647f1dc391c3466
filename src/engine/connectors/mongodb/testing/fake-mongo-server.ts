import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { BSON, Long, Timestamp, type Document } from 'mongodb';

/**
 * A MongoDB wire-protocol peer for tests, on loopback: no MongoDB server can run here, but the
 * real driver can still be driven through a real socket, so the commands the connector sends
 * (find with its filter, projection, sort and batchSize; getMore; killCursors) are seen exactly
 * as a server would see them, and cursors stream in batches with real round trips.
 *
 * It answers hello/isMaster as a standalone server, ping, listCollections, find/getMore with
 * cursors (a snapshot find with its `atClusterTime`), aggregate (the first documents, for `$sample`), killCursors and endSessions; SCRAM is
 * refused with code 18 when `rejectAuth` is set. It does NOT evaluate filters or projections:
 * find returns the stored documents in stored order (the real server suites cover semantics).
 * Like a server, it ends a batch at 16 MiB of documents (always sending at least one).
 */
export interface FakeMongoOptions {
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCa?: string };
  readonly rejectAuth?: boolean;
  readonly collections?: Readonly<Record<string, { readonly type?: string; readonly docs: readonly Document[] }>>;
  /** Error documents returned for a command name (`{ok: 0, errmsg, code, codeName}`). */
  readonly failures?: Readonly<Record<string, Document>>;
  /** The error document for one command in particular (undefined: answered as usual). */
  readonly fail?: (command: Document) => Document | undefined;
  /** Withhold the answers to these getMores until `releaseGetMore()` (to abort while one is in flight). */
  readonly holdGetMore?: (command: Document) => boolean;
  /** Withhold the answers to these commands (any name) until `releaseGetMore()`. */
  readonly hold?: (command: Document) => boolean;
  /** Fields added to the hello answer, e.g. `setName` and `hosts` of a replica set member. */
  readonly hello?: Document;
}

export interface FakeMongoServer {
  readonly port: number;
  /** TCP connections accepted (monitors and pool connections). */
  readonly connections: number;
  /** Every command received, in order (monitor heartbeats included). */
  readonly commands: Document[];
  readonly clientCertificates: string[];
  /** The commands with this name (the first key of the command document). */
  named(name: string): Document[];
  releaseGetMore(): void;
  close(): Promise<void>;
}

const OP_REPLY = 1;
/** The cluster time a snapshot find without one reads at. */
export const CLUSTER_TIME = new Timestamp({ t: 1_767_225_600, i: 7 });
/** A server's cap on the documents of one cursor batch (BSONObjMaxUserSize). */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const OP_QUERY = 2004;
const OP_MSG = 2013;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const out = Buffer.alloc(16);
  out.writeInt32LE(length, 0);
  out.writeInt32LE(Math.floor(Math.random() * 1e9), 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(opCode, 12);
  return out;
}

function reply(requestId: number, opCode: number, doc: Document): Buffer {
  const body = Buffer.from(BSON.serialize(doc));
  if (opCode === OP_QUERY) {
    const fields = Buffer.alloc(20);
    fields.writeInt32LE(1, 16); // numberReturned
    return Buffer.concat([header(16 + 20 + body.length, requestId, OP_REPLY), fields, body]);
  }
  const prefix = Buffer.from([0, 0, 0, 0, 0]); // flagBits, section kind 0
  return Buffer.concat([header(16 + 5 + body.length, requestId, OP_MSG), prefix, body]);
}

/** The command document of an OP_QUERY or OP_MSG (section kind 0). */
function commandOf(message: Buffer, opCode: number): Document {
  if (opCode === OP_QUERY) {
    const nameEnd = message.indexOf(0, 20);
    return BSON.deserialize(message.subarray(nameEnd + 9));
  }
  const size = message.readInt32LE(21);
  return BSON.deserialize(message.subarray(21, 21 + size));
}

interface OpenCursor {
  readonly ns: string;
  readonly docs: readonly Document[];
  position: number;
}

export async function startFakeMongoServer(options: FakeMongoOptions = {}): Promise<FakeMongoServer> {
  const commands: Document[] = [];
  const clientCertificates: string[] = [];
  const sockets = new Set<Socket>();
  const cursors = new Map<string, OpenCursor>();
  const held: (() => void)[] = [];
  let nextCursor = 1000;

  const cursorReply = (ns: string, docs: readonly Document[], batchSize: number, first: boolean): Document => {
    let taken = 0;
    let bytes = 0;
    while (taken < Math.min(batchSize, docs.length)) {
      bytes += BSON.calculateObjectSize(docs[taken]);
      if (taken > 0 && bytes > MAX_BATCH_BYTES) break;
      taken++;
    }
    const batch = docs.slice(0, taken);
    let id = Long.ZERO;
    if (docs.length > taken) {
      id = Long.fromNumber(nextCursor++);
      cursors.set(id.toString(), { ns, docs, position: taken });
    }
    return { cursor: { id, ns, [first ? 'firstBatch' : 'nextBatch']: batch }, ok: 1 };
  };

  const answer = (cmd: Document, released = false): Document | 'hold' => {
    const name = Object.keys(cmd)[0] ?? '';
    const db = typeof cmd.$db === 'string' ? cmd.$db : 'admin';
    const failure = options.fail?.(cmd) ?? options.failures?.[name];
    if (failure) return failure;
    if (options.hold?.(cmd) && !released) return 'hold';
    switch (name) {
      case 'hello':
      case 'isMaster':
      case 'ismaster':
        return {
          helloOk: true,
          isWritablePrimary: true,
          ismaster: true,
          maxBsonObjectSize: 16 * 1024 * 1024,
          maxMessageSizeBytes: 48_000_000,
          maxWriteBatchSize: 100_000,
          localTime: new Date(),
          logicalSessionTimeoutMinutes: 30,
          connectionId: 1,
          minWireVersion: 0,
          maxWireVersion: 21,
          readOnly: false,
          saslSupportedMechs: ['SCRAM-SHA-256'],
          ...options.hello,
          ok: 1,
        };
      case 'saslStart':
        return options.rejectAuth
          ? { ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' }
          : { ok: 0, errmsg: 'this fake server does not do SCRAM', code: 2, codeName: 'BadValue' };
      case 'ping':
      case 'endSessions':
        return { ok: 1 };
      case 'listCollections': {
        const all = Object.entries(options.collections ?? {}).map(([collection, spec]) => ({
          name: collection,
          type: spec.type ?? 'collection',
        }));
        const filter = cmd.filter as { name?: unknown } | undefined;
        const listed = filter?.name === undefined ? all : all.filter((c) => c.name === filter.name);
        return cursorReply(`${db}.$cmd.listCollections`, listed, 1_000, true);
      }
      case 'find': {
        const docs = options.collections?.[String(cmd.find)]?.docs ?? [];
        const limited = typeof cmd.limit === 'number' ? docs.slice(0, cmd.limit) : docs;
        const reply = cursorReply(`${db}.${String(cmd.find)}`, limited, typeof cmd.batchSize === 'number' ? cmd.batchSize : 101, true);
        // A snapshot read reports the cluster time it read at (the one it was given, or the server's).
        const readConcern = cmd.readConcern as { level?: unknown; atClusterTime?: unknown } | undefined;
        if (readConcern?.level === 'snapshot') reply.cursor.atClusterTime = readConcern.atClusterTime ?? CLUSTER_TIME;
        return reply;
      }
      case 'aggregate': {
        const docs = options.collections?.[String(cmd.aggregate)]?.docs ?? [];
        const batchSize = (cmd.cursor as { batchSize?: number } | undefined)?.batchSize ?? 101;
        return cursorReply(`${db}.${String(cmd.aggregate)}`, docs, batchSize, true);
      }
      case 'getMore': {
        if (options.holdGetMore?.(cmd) && !released) return 'hold';
        const open = cursors.get(String(cmd.getMore));
        if (!open) return { ok: 0, errmsg: 'cursor not found', code: 43, codeName: 'CursorNotFound' };
        cursors.delete(String(cmd.getMore));
        const rest = open.docs.slice(open.position);
        return cursorReply(open.ns, rest, typeof cmd.batchSize === 'number' ? cmd.batchSize : rest.length, false);
      }
      case 'killCursors': {
        const ids = (cmd.cursors as unknown[]).map(String);
        for (const id of ids) cursors.delete(id);
        return { cursorsKilled: cmd.cursors, cursorsNotFound: [], cursorsAlive: [], cursorsUnknown: [], ok: 1 };
      }
      default:
        return { ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' };
    }
  };

  let connections = 0;
  const serve = (socket: Socket): void => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      // A TLS ClientHello (record type 0x16, version 3.x) or no MongoDB message: hang up, as a
      // mongod without TLS does ("SSL handshake received but server is started without SSL support").
      const tlsHello = buffered[0] === 0x16 && buffered[1] === 0x03;
      if (tlsHello || (buffered.length >= 4 && (buffered.readInt32LE(0) < 16 || buffered.readInt32LE(0) > 48_000_000))) {
        socket.destroy();
        return;
      }
      while (buffered.length >= 16 && buffered.length >= buffered.readInt32LE(0)) {
        const message = buffered.subarray(0, buffered.readInt32LE(0));
        buffered = buffered.subarray(message.length);
        const requestId = message.readInt32LE(4);
        const opCode = message.readInt32LE(12);
        if (opCode !== OP_QUERY && opCode !== OP_MSG) continue;
        const cmd = commandOf(message, opCode);
        commands.push(cmd);
        const response = answer(cmd);
        if (response === 'hold') held.push(() => socket.write(reply(requestId, opCode, answer(cmd, true) as Document)));
        else socket.write(reply(requestId, opCode, response));
      }
    });
  };

  let server: Server;
  if (options.tls) {
    const tls = options.tls;
    server = createTlsServer(
      { cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: Boolean(tls.clientCa), rejectUnauthorized: false },
      (socket: TLSSocket) => {
        const subject = socket.getPeerCertificate()?.subject?.CN;
        if (subject) clientCertificates.push(String(subject));
        serve(socket);
      },
    );
    server.on('tlsClientError', () => undefined);
  } else {
    server = createTcpServer(serve);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();

  return {
    port: typeof address === 'object' && address ? address.port : 0,
    get connections() {
      return connections;
    },
    commands,
    clientCertificates,
    named: (name) => commands.filter((cmd) => Object.keys(cmd)[0] === name),
    releaseGetMore: () => {
      for (const release of held.splice(0)) release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
