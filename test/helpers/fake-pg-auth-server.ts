import type { Socket } from 'node:net';
import { TLSSocket, createSecureContext } from 'node:tls';
import { startCountingListener } from '../../src/engine/egress/testing/counting-listener.js';

export interface FakePgTls {
  readonly cert: string;
  readonly key: string;
  /** When given, the server asks for a client certificate signed by this CA. */
  readonly clientCa?: string;
}

export interface ReceivedPassword {
  readonly password: string;
  /** Whether it came over TLS. */
  readonly tls: boolean;
}

export interface FakePgServer {
  readonly port: number;
  /** Subjects (CN) of the client certificates presented over TLS, in order. */
  readonly clientCertificates: string[];
  /** Every password message received, in order: what a server asking for cleartext gets to see. */
  readonly passwords: ReceivedPassword[];
  /** TCP connections accepted. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A PostgreSQL wire-protocol peer that asks for the password in clear text
 * (AuthenticationCleartextPassword), records what it receives, and refuses it with SQLSTATE
 * 28P01, as a server with `password` authentication does. The local test server trusts every
 * login, so this is how a wrong password is provoked over a real socket. With `tls`, it accepts
 * the SSLRequest and upgrades the socket, so certificate handling is exercised for real.
 */
export async function startFakePgAuthServer(tls?: FakePgTls): Promise<FakePgServer> {
  const clientCertificates: string[] = [];
  const passwords: ReceivedPassword[] = [];
  const context = tls && createSecureContext({ cert: tls.cert, key: tls.key, ca: tls.clientCa });
  const onConnection = (raw: Socket): void => {
    let socket: Socket = raw;
    let stage: 'startup' | 'password' = 'startup';
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (stage === 'startup' && buffered.length >= 8) {
        const length = buffered.readInt32BE(0);
        if (buffered.length < length) return;
        if (buffered.readInt32BE(4) === 80877103) {
          buffered = buffered.subarray(length);
          if (!context) {
            socket.write('N');
            return;
          }
          socket.write('S');
          socket.removeListener('data', onData);
          const secure = new TLSSocket(socket, {
            isServer: true,
            secureContext: context,
            requestCert: Boolean(tls?.clientCa),
            rejectUnauthorized: false,
          });
          secure.on('error', () => undefined);
          secure.on('secure', () => {
            const subject = secure.getPeerCertificate()?.subject?.CN;
            if (subject) clientCertificates.push(String(subject));
          });
          secure.on('data', onData);
          socket = secure;
          return;
        }
        buffered = buffered.subarray(length);
        stage = 'password';
        const auth = Buffer.alloc(9);
        auth.write('R', 0);
        auth.writeInt32BE(8, 1);
        auth.writeInt32BE(3, 5); // AuthenticationCleartextPassword
        socket.write(auth);
      } else if (stage === 'password' && buffered.length >= 5 && buffered[0] === 0x70) {
        const length = buffered.readInt32BE(1);
        if (buffered.length < 1 + length) return;
        // PasswordMessage: 'p', length, the password NUL-terminated.
        passwords.push({ password: buffered.subarray(5, length).toString('utf8'), tls: socket !== raw });
        const fields = Buffer.concat(
          [
            ['S', 'FATAL'],
            ['V', 'FATAL'],
            ['C', '28P01'],
            ['M', 'password authentication failed for user "someone"'],
          ].map(([type, text]) => Buffer.concat([Buffer.from(type), Buffer.from(text), Buffer.from([0])])),
        );
        const body = Buffer.concat([fields, Buffer.from([0])]);
        const header = Buffer.alloc(5);
        header.write('E', 0);
        header.writeInt32BE(body.length + 4, 1);
        socket.end(Buffer.concat([header, body]));
      }
    };
    raw.on('data', onData);
  };
  const listener = await startCountingListener('127.0.0.1', { onConnection });
  return Object.assign(listener, { clientCertificates, passwords });
}
