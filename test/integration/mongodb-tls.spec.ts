import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedDatasource } from '../../src/engine/connectors/shared/engine-connector.js';
import { MongoDbConnector } from '../../src/engine/connectors/mongodb/mongodb.connector.js';
import { type FakeMongoServer, startFakeMongoServer } from '../../src/engine/connectors/mongodb/testing/fake-mongo-server.js';
import { DatasourceConnectError } from '../../src/engine/errors/datasource-errors.js';
import { DatasourceType } from '../../src/engine/connectors/datasource-type.js';
import { createTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';
import { datasourceRecord } from '../../src/engine/testing/datasource-records.js';

/**
 * TLS options as the driver really uses them, against a MongoDB wire-protocol peer over TLS on
 * loopback (no MongoDB server can run here): verification against the record's CA, the client
 * certificate presented, `insecure` skipping checks, and the failures each mode must produce.
 */
describe('MongoDB TLS modes against a TLS peer', () => {
  let certs: TestCertificates;
  let server: FakeMongoServer;
  const connector = new MongoDbConnector();

  beforeAll(async () => {
    certs = createTestCertificates();
    server = await startFakeMongoServer({ tls: { cert: certs.serverCert, key: certs.serverKey, clientCa: certs.ca } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const datasource = (ssl: ResolvedDatasource['ssl'], host = '127.0.0.1'): ResolvedDatasource =>
    datasourceRecord(
      DatasourceType.MongoDB,
      'tls_db',
      { host, port: server.port, name: 'shop', user: '', password: '' },
      { id: 'id-1', ssl },
    );

  const connects = async (ssl: ResolvedDatasource['ssl'], host?: string): Promise<void> => {
    const session = await connector.open(datasource(ssl, host), { connectTimeoutMs: 1_500 });
    await session.close();
  };
  const failure = async (ssl: ResolvedDatasource['ssl']): Promise<DatasourceConnectError> => {
    const error = await connects(ssl).then(
      () => new Error('connected'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatasourceConnectError);
    return error as DatasourceConnectError;
  };

  it.each(['true', 'enable'])('%s: verifies the server against the CA and presents the client certificate', async (mode) => {
    const before = server.clientCertificates.length;
    await connects({ mode, ca: certs.ca, cert: certs.clientCert, key: certs.clientKey });
    expect(server.clientCertificates.slice(before)).toContain('fetcher-test-client');
  });

  it('true: checks the host name against the certificate (DNS name localhost is in it)', async () => {
    await connects({ mode: 'true', ca: certs.ca }, 'localhost');
  });

  it('true: a server certificate from another CA is a tls failure', async () => {
    const error = await failure({ mode: 'true', ca: certs.otherCa });
    expect(error.reason).toBe('tls');
    expect(error.message).toMatch(/TLS negotiation failed/);
  });

  it('true without a CA verifies against the system roots, which do not know the test CA', async () => {
    expect((await failure({ mode: 'true' })).reason).toBe('tls');
  });

  it('insecure: connects without any certificate check', async () => {
    await connects({ mode: 'insecure' });
  });

  it('no TLS against a TLS-only server fails, hinting at TLS', async () => {
    const error = await failure({ mode: 'disable' });
    expect(error.reason).toBe('unknown');
    expect(error.message).toMatch(/the server at 127\.0\.0\.1:\d+ closed the connection \(does it require TLS\?\)/);
  });
});
