import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { PostgresConnector } from '../../src/engine/connectors/postgres/postgres.connector.js';
import { resolvedDatasource, useTempDatabase } from '../helpers/pg-database.js';
import { startPgTlsProxy, type PgTlsProxy } from '../helpers/pg-tls-proxy.js';
import { createTestCertificates } from '../helpers/test-certificates.js';

/**
 * The COPY path reads the connection's socket itself between CopyOutResponse and CopyDone. Over TLS
 * that socket is the TLS stream pg upgraded to: the read must give the same bytes as over plain
 * TCP, and the session must go on working afterwards (pg has its socket back).
 */
describe('COPY over a TLS connection', () => {
  const db = useTempDatabase('pg_copy_tls');
  let proxy: PgTlsProxy;
  let tlsSession: ConnectorSession;
  let plainSession: ConnectorSession;

  beforeAll(async () => {
    await db().query(`CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL, payload text);
      INSERT INTO items SELECT g, 'item "' || g || E'"\\t', repeat(md5(g::text), 1 + g % 40) FROM generate_series(1, 30000) g;`);
    const certs = createTestCertificates();
    proxy = await startPgTlsProxy({ host: db().host, port: db().port }, { cert: certs.serverCert, key: certs.serverKey });
    tlsSession = await new PostgresConnector('copy').open(
      resolvedDatasource({ ...db(), port: proxy.port }, { ssl: { mode: 'verify-full', ca: certs.ca } }),
      {
        connectTimeoutMs: 5_000,
      },
    );
    plainSession = await new PostgresConnector('copy').open(resolvedDatasource(db()), { connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await tlsSession?.close();
    await plainSession?.close();
    await proxy?.close();
  });

  async function read(session: ConnectorSession): Promise<{ bytes: Buffer; rows: number }> {
    const table = (await session.discover(['public'], new AbortController().signal)).tables.get('items') as TableInfo;
    const parts: Buffer[] = [];
    let rows = 0;
    for await (const batch of session.readRows(
      { table, columns: table.columns },
      new AbortController().signal,
    ) as AsyncIterable<RowBatch>) {
      parts.push(Buffer.from(batch.json), Buffer.from(','));
      rows += batch.rowCount;
      batch.release?.();
    }
    return { bytes: Buffer.concat(parts), rows };
  }

  it('reads every row over TLS exactly as over plain TCP, and the session stays usable', async () => {
    const overTls = await read(tlsSession);
    const overPlain = await read(plainSession);
    expect(overTls.rows).toBe(30_000);
    expect(overTls.bytes.equals(overPlain.bytes)).toBe(true);
    // pg has the socket back: the next statement on the same TLS session works.
    expect((await read(tlsSession)).bytes.equals(overPlain.bytes)).toBe(true);
  });
});
