import { createServer, type Server, type Socket } from 'node:net';
import type { FakeOracleAnswer, FakeOracleServer, FakeOracleServerOptions, FakeOracleValue } from './fake-oracle-types.js';
import {
  clientValue,
  dataTypesReply,
  describeInfo,
  errorInfo,
  executeArgs,
  FUNC,
  functionOf,
  MSG,
  O5Logon,
  parameters,
  protocolReply,
  readUb,
  rows,
  statusReply,
  VERIFIER_11G,
} from './fake-ttc.js';

/**
 * A tiny Oracle Database, enough for the real node-oracledb thin client to connect (Oracle Net
 * 3.15, no network services), log in (O5LOGON, 11g verifier), run statements, fetch their rows in
 * round trips and break them: no Oracle server can run on this machine, and the connector's
 * deadline, break and fetch-sizing paths must still be exercised through the real driver. It does
 * not parse SQL: `answer` decides the result of each statement from its text. Every column is a
 * VARCHAR2; a client request must fit in one packet (statements here are small).
 */
export type { FakeOracleAnswer, FakeOracleServer, FakeOracleServerOptions, FakeOracleValue } from './fake-oracle-types.js';

const NSPTCN = 1;
const NSPTAC = 2;
const NSPTDA = 6;
const NSPTMK = 12;
const MARKER = { BREAK: 1, RESET: 2, INTERRUPT: 3 };
const SDU = 8_192;
const MAX_PAYLOAD = SDU - 10;

interface Cursor {
  readonly id: number;
  readonly sql: string;
  columns: readonly string[];
  iterator: Iterator<readonly FakeOracleValue[]>;
  sent: number;
  stallAfter?: number;
  deaf: boolean;
}

export async function startFakeOracleServer(options: FakeOracleServerOptions): Promise<FakeOracleServer> {
  const sockets = new Set<Socket>();
  const state = { connections: 0, logins: 0, breaks: 0, running: 0, statements: [] as string[], fetchSizes: [] as number[] };
  const answer =
    options.answer ?? ((sql: string): FakeOracleAnswer => (sql.startsWith('ALTER') ? { done: true } : { columns: ['N'], rows: [] }));

  const handle = (socket: Socket): void => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    let accepted = false;
    let overflowConnectData = false;
    const logon = new O5Logon(options.password);
    const cursors = new Map<number, Cursor>();
    let nextCursor = 1;
    /** The call left unanswered (hanging or stalled), which a break ends. */
    let waiting: { cursorId: number; deaf: boolean } | undefined;
    socket.on('close', () => {
      sockets.delete(socket);
      if (waiting !== undefined) state.running--;
      waiting = undefined;
    });

    const packet = (type: number, body: Buffer): Buffer => {
      const header = Buffer.alloc(8);
      if (accepted) header.writeUInt32BE(8 + body.length, 0);
      else header.writeUInt16BE(8 + body.length, 0);
      header[4] = type;
      return Buffer.concat([header, body]);
    };
    const send = (payload: Buffer): void => {
      for (let o = 0; o < payload.length; o += MAX_PAYLOAD) {
        socket.write(packet(NSPTDA, Buffer.concat([Buffer.alloc(2), payload.subarray(o, o + MAX_PAYLOAD)])));
      }
    };
    const marker = (kind: number): void => {
      socket.write(packet(NSPTMK, Buffer.from([1, 0, kind])));
    };
    const wait = (cursorId: number, deaf: boolean): void => {
      waiting = { cursorId, deaf };
      state.running++;
    };

    const accept = (): void => {
      const body = Buffer.alloc(33);
      body.writeUInt16BE(315, 0); // version: large SDU, no data flags
      body.writeUInt16BE(SDU, 4);
      body.writeUInt16BE(65_535, 6);
      body[15] = 0x08; // no network services (ANO)
      body.writeUInt32BE(SDU, 24);
      body.writeUInt32BE(65_535, 28);
      socket.write(packet(NSPTAC, body));
      accepted = true;
    };

    /** Up to `wanted` rows of the cursor, then the end of call (1403 once the rows are exhausted), or a stall. */
    const fetch = (cursor: Cursor, wanted: number, describe: boolean): void => {
      state.fetchSizes.push(wanted);
      const batch: (readonly FakeOracleValue[])[] = [];
      let exhausted = false;
      let stalled = false;
      while (batch.length < wanted) {
        if (cursor.stallAfter !== undefined && cursor.sent >= cursor.stallAfter) {
          stalled = true;
          break;
        }
        const next = cursor.iterator.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        batch.push(next.value);
        cursor.sent++;
      }
      const parts = [describe ? describeInfo(cursor.columns) : Buffer.alloc(0), rows(batch)];
      if (stalled) {
        send(Buffer.concat(parts));
        return wait(cursor.id, cursor.deaf);
      }
      const end = exhausted ? { num: 1403, message: 'ORA-01403: no data found' } : {};
      send(Buffer.concat([...parts, errorInfo({ cursorId: cursor.id, rowCount: cursor.sent, ...end })]));
    };

    const execute = (cursorId: number, sql: string, prefetch: number, full: boolean): void => {
      state.statements.push(sql);
      const result = answer(sql);
      if ('hang' in result) return wait(cursorId, result.deaf === true);
      if ('error' in result) return send(errorInfo({ num: result.error.code, message: result.error.message }));
      if ('done' in result) return send(errorInfo());
      const id = cursorId === 0 ? nextCursor++ : cursorId;
      const cursor: Cursor = {
        id,
        sql,
        columns: result.columns,
        iterator: result.rows[Symbol.iterator](),
        sent: 0,
        stallAfter: result.stallAfter,
        deaf: result.deaf === true,
      };
      cursors.set(id, cursor);
      fetch(cursor, prefetch, full);
    };

    const onFunction = (payload: Buffer): void => {
      const fn = functionOf(payload);
      if (fn === undefined) return;
      switch (fn.code) {
        case FUNC.AUTH_PHASE_ONE:
          if (options.stallLogin === 'auth') return;
          return send(
            Buffer.concat([
              parameters([
                ['AUTH_SESSKEY', logon.encodedServerKey()],
                ['AUTH_VFR_DATA', logon.salt.toString('hex').toUpperCase(), VERIFIER_11G],
              ]),
              statusReply(),
            ]),
          );
        case FUNC.AUTH_PHASE_TWO: {
          state.logins++;
          const response = logon.serverResponse(clientValue(payload, 'AUTH_SESSKEY') ?? '');
          return send(
            Buffer.concat([
              parameters([
                ['AUTH_SVR_RESPONSE', response],
                ['AUTH_VERSION_NO', String(19 << 24)],
              ]),
              statusReply(),
            ]),
          );
        }
        case FUNC.EXECUTE: {
          const args = executeArgs(payload, fn.pos);
          return execute(args.cursorId, args.sql ?? cursors.get(args.cursorId)?.sql ?? '', args.prefetch, true);
        }
        case FUNC.REEXECUTE_AND_FETCH:
        case FUNC.REEXECUTE: {
          const [cursorId, afterCursor] = readUb(payload, fn.pos);
          const [iterations] = readUb(payload, afterCursor);
          return execute(cursorId, cursors.get(cursorId)?.sql ?? '', fn.code === FUNC.REEXECUTE ? 0 : iterations, false);
        }
        case FUNC.FETCH: {
          const [cursorId, afterCursor] = readUb(payload, fn.pos);
          const [wanted] = readUb(payload, afterCursor);
          const cursor = cursors.get(cursorId);
          return cursor === undefined ? send(errorInfo({ num: 1001, message: 'ORA-01001: invalid cursor' })) : fetch(cursor, wanted, false);
        }
        case FUNC.LOGOFF:
          return send(statusReply());
      }
    };

    const onMarker = (kind: number): void => {
      if (kind === MARKER.INTERRUPT || kind === MARKER.BREAK) {
        state.breaks++;
        if (waiting?.deaf) return;
        return marker(MARKER.BREAK);
      }
      // The client's reset after our break: reset, then end the interrupted call with ORA-01013.
      marker(MARKER.RESET);
      const cursorId = waiting?.cursorId ?? 0;
      if (waiting !== undefined) state.running--;
      waiting = undefined;
      send(errorInfo({ cursorId, num: 1013, message: 'ORA-01013: user requested cancel of current operation' }));
    };

    const onPacket = (type: number, body: Buffer): void => {
      if (type === NSPTCN) {
        const dataLength = body.readUInt16BE(16);
        overflowConnectData = 8 + body.length < body.readUInt16BE(18) + dataLength;
        if (!overflowConnectData) accept();
        return;
      }
      if (type === NSPTMK) return onMarker(body[2]);
      if (type !== NSPTDA) return;
      if (overflowConnectData) {
        overflowConnectData = false;
        return accept();
      }
      const flags = body.readUInt16BE(0);
      const payload = body.subarray(2);
      if (flags & 0x40 || payload.length === 0) return; // end of file: the client logs off
      if (payload[0] === MSG.PROTOCOL) return send(protocolReply());
      if (payload[0] === MSG.DATA_TYPES) return send(dataTypesReply());
      onFunction(payload);
    };

    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (pending.length < 8) return;
        const length = accepted ? pending.readUInt32BE(0) : pending.readUInt16BE(0);
        if (length < 8) return void socket.destroy();
        if (pending.length < length) return;
        const [type, body] = [pending[4], pending.subarray(8, length)];
        pending = pending.subarray(length);
        onPacket(type, body);
      }
    });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    statements: state.statements,
    fetchSizes: state.fetchSizes,
    get connections() {
      return state.connections;
    },
    get openConnections() {
      return sockets.size;
    },
    get logins() {
      return state.logins;
    },
    get breaks() {
      return state.breaks;
    },
    get running() {
      return state.running;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
