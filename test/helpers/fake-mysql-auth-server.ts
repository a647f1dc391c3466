import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { TLSSocket, createSecureContext } from 'node:tls';
import { startCountingListener } from '../../src/engine/egress/testing/counting-listener.js';

export interface ReceivedMySqlPassword {
  readonly password: string;
  readonly tls: boolean;
}

export interface FakeMySqlServer {
  readonly port: number;
  /** Every answer to the mysql_clear_password switch, in order. */
  readonly passwords: ReceivedMySqlPassword[];
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A MySQL wire-protocol peer whose accounts use a cleartext plugin (LDAP, PAM): after the
 * client's handshake response it asks to switch to `mysql_clear_password`, records what comes
 * back, and refuses the login (1045). With `tls` it offers SSL and upgrades on the client's
 * SSLRequest, so the same exchange can happen inside TLS. The local MariaDB has no such account.
 */
export async function startFakeMySqlAuthServer(tls?: { cert: string; key: string }): Promise<FakeMySqlServer> {
  const passwords: ReceivedMySqlPassword[] = [];
  const context = tls && createSecureContext({ cert: tls.cert, key: tls.key });

  // LONG_PASSWORD, LONG_FLAG, CONNECT_WITH_DB, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION,
  // PLUGIN_AUTH, CONNECT_ATTRS, PLUGIN_AUTH_LENENC_CLIENT_DATA; SSL when TLS is offered.
  const CAPABILITIES = 0x1 | 0x4 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x80000 | 0x100000 | 0x200000 | (context ? 0x800 : 0);

  const packet = (sequence: number, payload: Buffer): Buffer => {
    const header = Buffer.alloc(4);
    header.writeUIntLE(payload.length, 0, 3);
    header.writeUInt8(sequence & 0xff, 3);
    return Buffer.concat([header, payload]);
  };

  const greeting = (): Buffer => {
    const caps = Buffer.alloc(4);
    caps.writeUInt32LE(CAPABILITIES >>> 0);
    const status = Buffer.from([0x02, 0x00]);
    return Buffer.concat([
      Buffer.from([0x0a]),
      Buffer.from('8.0.36-fake\0', 'latin1'),
      Buffer.from([1, 0, 0, 0]),
      Buffer.from('abcdefgh', 'latin1'),
      Buffer.from([0]),
      caps.subarray(0, 2),
      Buffer.from([0x21]),
      status,
      caps.subarray(2, 4),
      Buffer.from([21]),
      Buffer.alloc(10),
      Buffer.from('ijklmnopqrst\0', 'latin1'),
      Buffer.from('mysql_native_password\0', 'latin1'),
    ]);
  };

  const accessDenied = (): Buffer => {
    const code = Buffer.alloc(2);
    code.writeUInt16LE(1045);
    return Buffer.concat([Buffer.from([0xff]), code, Buffer.from('#28000Access denied for user', 'latin1')]);
  };

  const onConnection = (raw: Socket): void => {
    let socket: Socket = raw;
    let stage: 'handshake' | 'switched' = 'handshake';
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUIntLE(0, 3)) {
        const length = buffered.readUIntLE(0, 3);
        const sequence = buffered.readUInt8(3);
        const payload = buffered.subarray(4, 4 + length);
        buffered = buffered.subarray(4 + length);
        if (stage === 'handshake' && context && length === 32 && socket === raw) {
          // SSLRequest: the rest of the conversation happens inside TLS. mysql2 sends its
          // ClientHello right behind it, possibly in the same chunk, so TLS runs over a stream
          // fed by hand rather than over the socket (whose buffered bytes would be lost).
          const tunnel = new Duplex({
            read: () => undefined,
            write: (data: Buffer, _encoding, done) => void raw.write(data, () => done()),
            final: (done) => {
              raw.end();
              done();
            },
          });
          raw.removeListener('data', onData);
          raw.on('data', (data: Buffer) => tunnel.push(data));
          const leftover = buffered;
          buffered = Buffer.alloc(0);
          const secure = new TLSSocket(tunnel as unknown as Socket, { isServer: true, secureContext: context });
          secure.on('error', () => undefined);
          secure.on('data', onData);
          socket = secure;
          if (leftover.length > 0) tunnel.push(leftover);
          return;
        }
        if (stage === 'handshake') {
          stage = 'switched';
          socket.write(packet(sequence + 1, Buffer.concat([Buffer.from([0xfe]), Buffer.from('mysql_clear_password\0', 'latin1')])));
        } else {
          const text = payload.toString('utf8');
          passwords.push({ password: text.endsWith('\0') ? text.slice(0, -1) : text, tls: socket !== raw });
          socket.end(packet(sequence + 1, accessDenied()));
        }
      }
    };
    raw.on('data', onData);
    raw.write(packet(0, greeting()));
  };
  const listener = await startCountingListener('127.0.0.1', { onConnection });
  return Object.assign(listener, { passwords });
}
