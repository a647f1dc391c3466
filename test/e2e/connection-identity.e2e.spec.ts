import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialCipher } from '../../src/datasource/credential-cipher.service.js';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { TEST_PG, useTempDatabase } from '../helpers/pg-database.js';
import { createTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';

const SECRET_COLUMNS = ['password_encrypted', 'ssl_ca_encrypted', 'ssl_cert_encrypted', 'ssl_key_encrypted'] as const;

/** The `connections` rows as `pg_dump --data-only` writes them (COPY text), keyed by id; `\N` is NULL. */
function connectionRows(dump: string): Map<string, Record<string, string>> {
  const lines = dump.split('\n');
  const start = lines.findIndex((line) => line.startsWith('COPY public.connections ('));
  if (start < 0) throw new Error(`no COPY of public.connections in the dump:\n${dump.slice(0, 2_000)}`);
  const columns = /\(([^)]*)\)/.exec(lines[start])![1].split(', ');
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(start + 1)) {
    if (line === '\\.') break;
    const row = Object.fromEntries(line.split('\t').map((value, index) => [columns[index], value]));
    rows.set(row.id, row);
  }
  return rows;
}

/**
 * Issue 23, acceptance 6: a PATCH of what decides which server is trusted (Oracle's pinned
 * certificate DN, the CA, the host) leaves no stored credential behind for the old endpoint,
 * down to the bytes of the store: the password, the client certificate and the client key are gone
 * from the row, not merely flagged.
 */
describe('a PATCH of the endpoint identity clears the password, the client certificate and the key', () => {
  const store = useTempDatabase('e2e_identity_store');
  let fetcher: EmbeddedFetcher;
  let certs: TestCertificates;

  beforeAll(async () => {
    certs = createTestCertificates();
    fetcher = await startEmbeddedFetcher({ DATABASE_URL: store().url });
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  const dump = async (): Promise<string> => {
    const { stdout } = await promisify(execFile)(
      'pg_dump',
      ['-h', TEST_PG.host, '-p', String(TEST_PG.port), '-U', TEST_PG.user, '--data-only', '-t', 'connections', store().name],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PGPASSWORD: TEST_PG.password } },
    );
    return stdout;
  };

  /** An Oracle connection over verified TLS with a pinned DN; creating one does not connect. */
  const createOracle = async (password: string) => {
    const response = await fetcher.http
      .post('/v1/management/connections')
      .set('X-Product-Name', 'reporter')
      .send({
        configName: `ora_${randomBytes(4).toString('hex')}`,
        type: 'ORACLE',
        host: '127.0.0.1',
        port: 2484,
        databaseName: 'FREEPDB1',
        userName: 'reporter',
        password,
        ssl: { mode: 'verify', ca: certs.ca, cert: certs.clientCert, key: certs.clientKey },
        metadata: { serviceName: 'FREEPDB1', sslServerCertDN: 'CN=fetcher-test-server', team: 'finance' },
      });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({ hasPassword: true, hasClientCertificate: true, hasClientKey: true });
    return response.body as { id: string };
  };

  it.each<[string, () => Record<string, unknown>]>([
    ['metadata.sslServerCertDN', () => ({ metadata: { serviceName: 'FREEPDB1', sslServerCertDN: 'CN=attacker', team: 'finance' } })],
    ['ssl.ca', () => ({ ssl: { ca: certs.otherCa } })],
    ['host', () => ({ host: 'localhost' })],
  ])('a PATCH of %s answers hasPassword: false, and the store keeps no ciphertext of the old credentials', async (field, change) => {
    const password = `identity-${randomBytes(8).toString('hex')}`;
    const { id } = await createOracle(password);
    const [before] = (await store().query('SELECT * FROM connections WHERE id = $1', [id])).rows as Record<string, string | null>[];
    const oldCiphertexts = [before.password_encrypted, before.ssl_cert_encrypted, before.ssl_key_encrypted] as string[];
    // Guard the guard: the dump does show them while they are stored.
    const dumpedBefore = await dump();
    for (const sealed of oldCiphertexts) expect(dumpedBefore).toContain(sealed);

    const patched = await fetcher.http.patch(`/v1/management/connections/${id}`).send(change());
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      hasPassword: false,
      hasClientCertificate: false,
      hasClientKey: false,
      identityChanged: [field],
      clearedCredentials: ['password', 'ssl.cert', 'ssl.key'],
    });
    const read = await fetcher.http.get(`/v1/management/connections/${id}`);
    expect(read.body).toMatchObject({ hasPassword: false, hasClientCertificate: false, hasClientKey: false });

    const dumped = await dump();
    for (const sealed of oldCiphertexts) expect(dumped).not.toContain(sealed);
    const row = connectionRows(dumped).get(id);
    expect(row).toMatchObject({ password_encrypted: '', ssl_cert_encrypted: '\\N', ssl_key_encrypted: '\\N' });
    // Nor under a new seal: whatever the row still holds opens to none of the old credentials.
    const cipher = fetcher.app.get(CredentialCipher);
    const opened = SECRET_COLUMNS.map((column) => row![column])
      .filter((value) => value !== '' && value !== '\\N')
      .map((sealed) => cipher.decrypt(sealed, row!.encryption_key_version));
    expect(opened).toEqual([field === 'ssl.ca' ? certs.otherCa : certs.ca]);
    expect(dumped).not.toContain(password);
  });

  it('a PATCH that leaves the endpoint as it is keeps all three', async () => {
    const { id } = await createOracle(`kept-${randomBytes(8).toString('hex')}`);
    const patched = await fetcher.http
      .patch(`/v1/management/connections/${id}`)
      .send({ userName: 'auditor', metadata: { serviceName: 'FREEPDB1', sslServerCertDN: 'CN=fetcher-test-server', team: 'audit' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ hasPassword: true, hasClientCertificate: true, hasClientKey: true });
    expect(patched.body).not.toHaveProperty('identityChanged');
    expect(patched.body).not.toHaveProperty('clearedCredentials');
  });
});
