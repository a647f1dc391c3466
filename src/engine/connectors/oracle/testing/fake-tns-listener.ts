import type { Socket } from 'node:net';
import { startCountingListener } from '../../../egress/testing/counting-listener.js';

/**
 * An Oracle Net listener stand-in that answers the client's CONNECT packet with a REDIRECT to
 * another address, as a SCAN or dispatcher listener hands a client on to the instance. Packet
 * layout as node-oracledb thin reads it (sqlnet/packet.js RedirectPacket): the 8-byte header
 * (length, checksum, type 5, flags 0, header checksum), the data length at offset 8, the
 * address text from offset 10. Flags 0: the client resends its own connect data.
 */
export interface FakeTnsListener {
  readonly port: number;
  /** CONNECT packets received. */
  readonly connectPackets: number;
  close(): Promise<void>;
}

const NSPTCN = 1;
const NSPTRD = 5;

export function redirectPacket(address: string): Buffer {
  const data = Buffer.from(address, 'ascii');
  const packet = Buffer.alloc(10 + data.length);
  packet.writeUInt16BE(packet.length, 0);
  packet.writeUInt8(NSPTRD, 4);
  packet.writeUInt8(0, 5);
  packet.writeUInt16BE(data.length, 8);
  data.copy(packet, 10);
  return packet;
}

export async function startRedirectingListener(redirectTo: { host: string; port: number }): Promise<FakeTnsListener> {
  let connectPackets = 0;
  const address = `(ADDRESS=(PROTOCOL=TCP)(HOST=${redirectTo.host})(PORT=${redirectTo.port}))`;
  const onConnection = (socket: Socket): void => {
    socket.once('data', (chunk: Buffer) => {
      if (chunk.length < 8 || chunk[4] !== NSPTCN) return void socket.destroy();
      connectPackets++;
      socket.write(redirectPacket(address));
    });
  };
  const listener = await startCountingListener('127.0.0.1', { onConnection });
  return {
    port: listener.port,
    get connectPackets() {
      return connectPackets;
    },
    close: () => listener.close(),
  };
}
