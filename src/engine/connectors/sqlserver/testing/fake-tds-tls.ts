import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import { PACKET } from './fake-tds-tokens.js';

/**
 * The server side of TLS negotiated inside TDS 7.x (SSL mode `true`): after a pre-login answer
 * of ENCRYPTION ON, the handshake records travel as the payload of PRELOGIN packets both ways;
 * once it is done, TLS records travel bare on the socket and carry the TDS packets.
 */
export interface PreloginTls {
  /** The payload of a PRELOGIN packet received during the handshake. */
  feed(payload: Buffer): void;
}

const MAX_DATA = 4096 - 8;

/** One PRELOGIN message (end-of-message on its last packet only). */
function preloginMessage(data: Buffer): Buffer {
  const packets: Buffer[] = [];
  for (let o = 0; o < data.length; o += MAX_DATA) {
    const chunk = data.subarray(o, o + MAX_DATA);
    const header = Buffer.from([PACKET.PRELOGIN, o + MAX_DATA >= data.length ? 1 : 0, 0, 0, 0, 0, 1, 0]);
    header.writeUInt16BE(chunk.length + 8, 2);
    packets.push(header, chunk);
  }
  return Buffer.concat(packets);
}

export function negotiateInsidePrelogin(raw: Socket, context: SecureContext, onSecure: (secure: TLSSocket) => void): PreloginTls {
  let handshaking = true;
  // tedious reads exactly one message per handshake message it sent: a whole flight of records
  // (written in several pieces within one tick) must go back as one message.
  let flight: Buffer[] = [];
  const flush = (): void => {
    if (flight.length === 0) return;
    const data = Buffer.concat(flight);
    flight = [];
    raw.write(preloginMessage(data));
  };
  const tunnel = new Duplex({
    read: () => undefined,
    write: (data: Buffer, _encoding, done) => {
      if (handshaking) {
        if (flight.length === 0) setImmediate(flush);
        flight.push(data);
        return done();
      }
      flush();
      raw.write(data, () => done());
    },
    final: (done) => {
      raw.end();
      done();
    },
  });
  const secure = new TLSSocket(tunnel as unknown as Socket, { isServer: true, secureContext: context });
  secure.on('error', () => raw.destroy());
  secure.once('secure', () => {
    // The server's last flight is written just after this event and must still be wrapped:
    // records go bare only once the client, done with its handshake, sends bare records.
    raw.removeAllListeners('data');
    raw.on('data', (data: Buffer) => {
      handshaking = false;
      flush();
      tunnel.push(data);
    });
    onSecure(secure);
  });
  return { feed: (payload) => tunnel.push(payload) };
}
