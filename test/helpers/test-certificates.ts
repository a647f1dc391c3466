import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  readonly ca: string;
  /** A CA that signed nothing here: verification against it must fail. */
  readonly otherCa: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

/** A throw-away CA with a server certificate for 127.0.0.1/localhost and a client certificate (openssl CLI). */
export function createTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'fetcher-certs-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    for (const name of ['ca', 'other-ca']) {
      run(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=fetcher-test-${name}`,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
      );
    }
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    for (const [name, ext] of [
      ['server', ['-extfile', 'server.ext']],
      ['client', []],
    ] as const) {
      run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=fetcher-test-${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
      run(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-out',
        `${name}.pem`,
        ...ext,
      );
    }
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    return {
      ca: read('ca.pem'),
      otherCa: read('other-ca.pem'),
      serverCert: read('server.pem'),
      serverKey: read('server.key'),
      clientCert: read('client.pem'),
      clientKey: read('client.key'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
