import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OracleConnector } from '../../src/engine/connectors/oracle/oracle.connector.js';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';
import { createTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';

/**
 * The connect path of the Oracle connector through the real node-oracledb thin driver, against
 * local stand-ins for a listener (no Oracle server needed): refused and silent ports, and TLS
 * listeners that complete the handshake, note whether the driver then sent an Oracle Net CONNECT
 * packet, and hang up. A hang-up after the handshake ("closed the connection during the
 * handshake") therefore proves the TLS settings were accepted; a `tls` failure proves they were not.
 */

const DS: ResolvedDatasource = datasourceRecord(
  DatasourceType.Oracle,
  'ora_connect',
  { host: '127.0.0.1', port: 1, name: 'ignored', user: 'fetcher', password: 'not-a-real-secret' },
  { id: 'id-1', metadata: { serviceName: 'FREEPDB1' } },
);

interface Listener {
  port: number;
  /** Oracle Net CONNECT packets received after a completed handshake. */
  connectPackets: number;
  close(): Promise<void>;
}

const listening = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
};

const closing = (server: Server, sockets: Set<Socket>) => async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
};

/** A TLS listener that hangs up after the first Oracle Net packet. */
async function tlsListener(options: { cert: string; key: string; ca?: string; requestCert?: boolean }): Promise<Listener> {
  const sockets = new Set<Socket>();
  const listener: Listener = { port: 0, connectPackets: 0, close: async () => undefined };
  const server = createTlsServer({ ...options, rejectUnauthorized: options.requestCert === true }, (socket: TLSSocket) => {
    socket.once('data', (packet: Buffer) => {
      // TNS header: length (2), checksum (2), type (1): 1 is CONNECT.
      if (packet.length > 4 && packet[4] === 1) listener.connectPackets++;
      socket.destroy();
    });
    socket.on('error', () => undefined);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  listener.port = await listening(server);
  listener.close = closing(server, sockets);
  return listener;
}

/** A self-signed server certificate naming only db.fetcher.test (not 127.0.0.1). */
function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-ora-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=fetcher-oracle-test',
        '-addext',
        'subjectAltName=DNS:db.fetcher.test',
        '-keyout',
        'k.pem',
        '-out',
        'c.pem',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    return { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Oracle connect through node-oracledb thin, against local stand-ins', () => {
  const connector = new OracleConnector();
  let certs: TestCertificates;
  let own: { cert: string; key: string };
  let signed: Listener;
  let chained: Listener;
  let selfSignedListener: Listener;
  let mutual: Listener;

  beforeAll(async () => {
    certs = createTestCertificates();
    own = selfSigned();
    signed = await tlsListener({ cert: certs.serverCert, key: certs.serverKey });
    chained = await tlsListener({ cert: certs.serverCert + certs.ca, key: certs.serverKey });
    selfSignedListener = await tlsListener(own);
    mutual = await tlsListener({ cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, requestCert: true });
  });

  afterAll(async () => {
    await Promise.all([signed, chained, selfSignedListener, mutual].filter(Boolean).map((l) => l.close()));
  });

  const open = (
    listener: Listener | number,
    ssl: ResolvedDatasource['ssl'],
    metadata: Record<string, unknown> = DS.metadata,
    timeoutMs = 5_000,
  ) =>
    connector.open(
      { ...DS, port: typeof listener === 'number' ? listener : listener.port, ssl, metadata: { ...metadata } },
      { connectTimeoutMs: timeoutMs },
    );

  /** TLS accepted: the driver went on to send its CONNECT packet, and the stand-in hung up. */
  const expectTlsAccepted = async (listener: Listener, attempt: Promise<unknown>) => {
    const before = listener.connectPackets;
    await expect(attempt).rejects.toMatchObject({
      reason: 'unreachable',
      message: expect.stringMatching(/closed the connection during the handshake/),
    });
    expect(listener.connectPackets).toBe(before + 1);
  };

  it('reports a closed port as unreachable, quickly and without secrets', async () => {
    const probe = createServer();
    const port = await listening(probe);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const started = Date.now();
    const error = await open(port, { mode: null }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'DatasourceConnectError',
      reason: 'unreachable',
      message: `Cannot connect to Oracle datasource "ora_connect": cannot reach 127.0.0.1:${port} (connection refused)`,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(String((error as Error).message)).not.toContain('not-a-real-secret');
  });

  it('times out against a listener that never answers, at our deadline', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    const port = await listening(silent);
    try {
      const started = Date.now();
      await expect(open(port, { mode: null }, DS.metadata, 700)).rejects.toMatchObject({
        reason: 'timeout',
        message: expect.stringMatching(/no answer from 127\.0\.0\.1:\d+ within 700 ms$/),
      });
      expect(Date.now() - started).toBeLessThan(2_500);

      const controller = new AbortController();
      const attempt = connector.open({ ...DS, port }, { connectTimeoutMs: 10_000, signal: controller.signal });
      setTimeout(() => controller.abort(new Error('job cancelled')), 50);
      await expect(attempt).rejects.toThrow('job cancelled');
    } finally {
      await closing(silent, sockets)();
    }
  });

  it('verify with the CA: the chain and the host name check out', async () => {
    await expectTlsAccepted(signed, open(signed, { mode: 'verify', ca: certs.ca }));
  });

  it('verify / true against a CA the record does not trust: tls', async () => {
    const before = signed.connectPackets;
    await expect(open(signed, { mode: 'verify', ca: certs.otherCa })).rejects.toMatchObject({
      reason: 'tls',
      message: expect.stringMatching(/not signed by a trusted CA/),
    });
    // Without a CA the system roots apply, which do not know the test CA.
    await expect(open(signed, { mode: 'true' })).rejects.toMatchObject({ reason: 'tls' });
    expect(signed.connectPackets).toBe(before);
  });

  it('verify refuses a certificate that does not name the host; true and enable accept it', async () => {
    await expect(open(selfSignedListener, { mode: 'verify', ca: own.cert })).rejects.toMatchObject({
      reason: 'tls',
      message: expect.stringMatching(/does not name the host/),
    });
    await expectTlsAccepted(selfSignedListener, open(selfSignedListener, { mode: 'true', ca: own.cert }));
    await expectTlsAccepted(selfSignedListener, open(selfSignedListener, { mode: 'enable', ca: own.cert }));
  });

  it('verify with metadata.sslServerCertDN matches that exact DN instead of the host', async () => {
    await expectTlsAccepted(
      selfSignedListener,
      open(selfSignedListener, { mode: 'verify', ca: own.cert }, { serviceName: 'FREEPDB1', sslServerCertDN: 'CN=fetcher-oracle-test' }),
    );
    await expect(
      open(selfSignedListener, { mode: 'verify', ca: own.cert }, { serviceName: 'FREEPDB1', sslServerCertDN: 'CN=someone-else' }),
    ).rejects.toMatchObject({ reason: 'tls' });
  });

  it('skip-verify trusts a self-signed certificate, or a chain the server sends with its root', async () => {
    await expectTlsAccepted(selfSignedListener, open(selfSignedListener, { mode: 'skip-verify' }));
    await expectTlsAccepted(chained, open(chained, { mode: 'skip-verify' }));
  });

  it('sends the record’s client certificate to a listener that requires one', async () => {
    await expectTlsAccepted(mutual, open(mutual, { mode: 'verify', ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }));
    // Without it the listener refuses the handshake (the throw-away identity is not trusted there).
    const before = mutual.connectPackets;
    await expect(open(mutual, { mode: 'verify', ca: certs.ca })).rejects.toMatchObject({ name: 'DatasourceConnectError' });
    expect(mutual.connectPackets).toBe(before);
  });

  it('plain TCP against a TLS listener never gets as far as a CONNECT packet', async () => {
    const before = signed.connectPackets;
    await expect(open(signed, { mode: 'disable', ca: certs.ca }, DS.metadata, 1_500)).rejects.toMatchObject({
      name: 'DatasourceConnectError',
    });
    expect(signed.connectPackets).toBe(before);
  });
});
